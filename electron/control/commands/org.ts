/** The org a command works on: its id checked before anything touches the store, then found in it (on both paths). */
import type { Store } from '../../store/database';
import { OrgIdError, UnknownOrgError, assertOrgId, listOrgs, requireOrg } from '../../store/tables/orgs';
import { CommandError, CommandUsageError } from '../command';

export function checkOrg(org: string): string {
  try {
    assertOrgId(org);
    return org;
  } catch (error) {
    if (error instanceof OrgIdError) throw new CommandError(error.message);
    throw error;
  }
}

/** The org, which must be in the data directory (else the error names the orgs there). */
export function knownOrg(store: Store, org: string): string {
  try {
    requireOrg(store, org);
    return org;
  } catch (error) {
    if (error instanceof UnknownOrgError) throw new CommandError(error.message);
    throw error;
  }
}

/**
 * The org given, else the data directory's only one. With none, `nothing` says what that means for the
 * command; with several, `asker` (the command or its option) needs --org: a usage error.
 */
export function orgOrOnly(
  store: Store,
  org: string | undefined,
  words: { nothing: string; asker: string },
): string {
  if (org !== undefined) return knownOrg(store, org);
  const orgs = listOrgs(store).map(({ id }) => id);
  if (orgs.length === 0) throw new CommandError(`this mirror has no org yet: ${words.nothing}`);
  if (orgs.length > 1)
    throw new CommandUsageError(
      `${words.asker} needs --org here: this mirror has ${orgs.length} orgs (${orgs.join(', ')})`,
    );
  return orgs[0]!;
}
