/** The org a command works on, checked before anything touches the store (on both paths). */
import { OrgIdError, assertOrgId } from '../../store/tables/orgs';
import { CommandError } from '../command';

export function checkOrg(org: string): string {
  try {
    assertOrgId(org);
    return org;
  } catch (error) {
    if (error instanceof OrgIdError) throw new CommandError(error.message);
    throw error;
  }
}
