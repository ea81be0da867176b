/**
 * What the tray shows of the synced orgs' datasets (DESIGN.md §5): how many there are by latest status
 * and the first FAILED ones by name. The alerts decide what snoozes leave out and what colour it makes.
 */
import type { FailedDataset } from '../store/announcements';
import type { Store } from '../store/database';
import { FAILED_DELIVERY } from '../store/failedDelivery';

export interface StatusCount {
  /** The latest status as stored (any text, or null when there is none). */
  status: string | null;
  count: number;
}

/** ?, ?, … for a list of values. */
const marks = (values: readonly unknown[]): string => values.map(() => '?').join(',');

/** The orgs' datasets counted by latest status. */
export function statusCounts(store: Store, orgIds: readonly string[]): StatusCount[] {
  if (orgIds.length === 0) return [];
  return store
    .all(`SELECT status, count(*) AS n FROM datasets WHERE org_id IN (${marks(orgIds)}) GROUP BY status`, [
      ...orgIds,
    ])
    .map((row) => ({ status: row.status === null ? null : String(row.status), count: Number(row.n) }));
}

/** The dataset's latest status (null when none); undefined when the org has no such dataset. */
export function datasetStatus(store: Store, orgId: string, datasetId: string): string | null | undefined {
  return store.value<string | null>('SELECT status FROM datasets WHERE org_id = ? AND dataset_id = ?', [
    orgId,
    datasetId,
  ]);
}

/**
 * The orgs' first `limit` FAILED datasets by name, each with the delivery it is about ('' when none is
 * stored).
 */
export function failedDatasets(store: Store, orgIds: readonly string[], limit: number): FailedDataset[] {
  if (orgIds.length === 0) return [];
  return store
    .all(
      `SELECT d.org_id, d.dataset_id, d.name, ${FAILED_DELIVERY} AS failed
       FROM datasets d WHERE d.org_id IN (${marks(orgIds)}) AND d.status = 'FAILED'
       ORDER BY d.name_key, d.dataset_id LIMIT ?`,
      [...orgIds, limit],
    )
    .map((row) => ({
      orgId: String(row.org_id),
      datasetId: String(row.dataset_id),
      datasetName: row.name === null ? null : String(row.name),
      deliveryId: row.failed === null ? '' : String(row.failed),
    }));
}
