/** Option parsers shared by the commands: a bad value is a usage error (exit 2) naming the option. */
import { InvalidArgumentError, Option } from 'commander';
import { REMOTE_KEY_ENV } from '../sync/secrets';

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
export { checkOrg } from '../control/commands/org';

/** The `DATASET_HEALTH_REMOTE_KEY*` variables: all a command needs of the environment for remote keys. */
export function remoteKeyEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[0].startsWith(REMOTE_KEY_ENV) && entry[1] !== undefined,
    ),
  );
}
