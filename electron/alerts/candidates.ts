/**
 * A cycle's candidates (docs/architecture.md#notifications): the org's unannounced failures, read in a
 * turn of their own ahead of the decision (failures.ts `decideCycle`), and whether they still hold when
 * it is taken.
 */
import type { Store } from '../store/database';
import { type FailedDataset, unannouncedFailures } from '../store/tables/announcements';

/** An org's unannounced failures as read at a data revision. */
export interface Candidates {
  revision: string;
  failures: FailedDataset[];
}

/**
 * The org's unannounced failures, read ahead of `decideCycle` in a turn of their own: at 100k datasets
 * the read is the longest part of the decision (docs/decisions.md "What a commit sets off, at 100k").
 */
export function readCandidates(store: Store, orgId: string): Candidates {
  return { revision: store.dataRevision, failures: unannouncedFailures(store, orgId) };
}

/**
 * The candidates still as they would be read now, else undefined. Only a data commit can make a
 * delivery newly unannounced or announced by someone else: the alerts' own decisions are taken one
 * evaluation at a time, and a release only rewrites rows already remembered.
 */
export function stillCurrent(store: Store, read: Candidates | undefined): Candidates | undefined {
  return read?.revision === store.dataRevision ? read : undefined;
}
