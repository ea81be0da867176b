/** Option parsers shared by the commands: a bad value is a usage error (exit 2) naming the option. */
import { InvalidArgumentError, Option } from 'commander';
import { assertOrgId, OrgIdError } from '../store/orgs';
import { CliError } from './io';

export function integerOption(min: number, max: number): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
    }
    return parsed;
  };
}

/** A decimal number in [min, max], written plainly (`0.06`, `2`, `.5`): no signs, exponents or hex. */
export function floatOption(min: number, max: number): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!/^(\d+\.?\d*|\.\d+)$/.test(value.trim()) || parsed < min || parsed > max) {
      throw new InvalidArgumentError(`expected a number from ${min} to ${max}`);
    }
    return parsed;
  };
}

export function dataDirOption(): Option {
  return new Option(
    '--data-dir <dir>',
    'data directory (default: $DATASET_HEALTH_DATA_DIR, else the app folder)',
  );
}

/** The org a command works on, checked before anything opens the data directory. */
export function checkOrg(org: string): string {
  try {
    assertOrgId(org);
    return org;
  } catch (error) {
    if (error instanceof OrgIdError) throw new CliError(error.message);
    throw error;
  }
}
