/**
 * The stored health of an org's datasets as the sync compares the remote's against it (docs/architecture.md#sync):
 * which are stored, which are in trouble, and what each one's latest status and FAILED delivery are, so a
 * cycle reports status transitions and the fast poll re-reads troubled datasets.
 */
import type { Store } from '../store/database';
import { NEWEST_FAILED_DELIVERY } from '../store/schema/failedDelivery';

export interface StoredHealth {
  status: string | null;
  /** The newest FAILED delivery while the dataset is FAILED, else null. */
  failedDeliveryId: string | null;
}

/** The dataset's latest status and, when FAILED, the delivery it is about; undefined when not stored. */
export function storedHealth(store: Store, orgId: string, datasetId: string): StoredHealth | undefined {
  const row = store.get(
    `SELECT d.status, ${NEWEST_FAILED_DELIVERY} AS failed
     FROM datasets d WHERE d.org_id = ? AND d.dataset_id = ?`,
    [orgId, datasetId],
  );
  if (!row) return undefined;
  return {
    status: row.status === null ? null : String(row.status),
    failedDeliveryId: row.status === 'FAILED' && row.failed !== null ? String(row.failed) : null,
  };
}

/** Every datasetId the org has stored. */
export function storedDatasetIds(store: Store, orgId: string): string[] {
  return store.column<string>('SELECT dataset_id FROM datasets WHERE org_id = ?', [orgId]);
}

/** Datasets whose latest status is FAILED or MISSING: the fast poll re-reads them if the remote stops listing them. */
export function troubledDatasets(store: Store, orgId: string): string[] {
  return store.column<string>(
    "SELECT dataset_id FROM datasets WHERE org_id = ? AND status IN ('FAILED', 'MISSING')",
    [orgId],
  );
}
