/**
 * `serve`'s lines about the database's writes (issue 12), in the style of its sync lines: one when the
 * disk starts refusing them (what, where, how much waits in memory, that it is tried again) and one
 * when it accepts them again. A refusal that goes on is not repeated: the structured log has each retry.
 */
import type { DatabaseStatus } from '../../shared/database';

export function describeStorage(before: DatabaseStatus, after: DatabaseStatus): string | null {
  const refused = after.writeProblem;
  if (refused && !before.writeProblem)
    return `storage: ${refused.message}; it is tried again every few seconds, and the local API keeps serving`;
  if (!refused && before.writeProblem)
    return `storage: writing to ${after.dataDir} works again; the changes kept in memory are saved, nothing was lost`;
  return null;
}
