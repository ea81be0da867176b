/**
 * Snoozing (docs/architecture.md#snoozes), as the window does it: for an org this desktop keeps alone,
 * the snoozes table; for an org shared with a team, the member's operation, which every member applies
 * alike (docs/decisions.md "On call as a team: members"). A 1 h or 4 h snooze ends at the time its
 * author fixed, on every member.
 */
import type { SnoozeKind, SnoozeView } from '../../shared/views';
import type { Store } from '../store/database';
import { clearSnooze, setSnooze, snoozeTerms, storedSnooze } from '../store/tables/snoozes';
import { recordIfShared } from '../team/localOperations';

export function snoozeDataset(
  store: Store,
  orgId: string,
  datasetId: string,
  kind: SnoozeKind,
  now: Date,
): SnoozeView {
  const terms = snoozeTerms(store, orgId, datasetId, kind, now);
  // As the table's own snoozes: not a change of the mirrored data (no ETag turns over).
  const shared = store.transaction(
    () =>
      recordIfShared(store, orgId, () => [{ kind: 'snooze', payload: { datasetId, kind, ...terms } }], {
        now: () => now,
      }),
    { dataChange: false },
  );
  return shared ? storedSnooze(store, orgId, datasetId)! : setSnooze(store, orgId, datasetId, kind, now);
}

/** Ends the dataset's snooze; false when it had none. */
export function unsnoozeDataset(store: Store, orgId: string, datasetId: string, now: Date): boolean {
  if (storedSnooze(store, orgId, datasetId) === null) return false;
  const shared = store.transaction(
    () =>
      recordIfShared(store, orgId, () => [{ kind: 'unsnooze', payload: { datasetId } }], { now: () => now }),
    { dataChange: false },
  );
  return shared || clearSnooze(store, orgId, datasetId);
}
