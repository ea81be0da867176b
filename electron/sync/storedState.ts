/** What the sync reads of the mirror before a cycle: each dataset's remote fingerprint and status. */
import type { Store } from '../store/database';
import { NEWEST_FAILED_DELIVERY } from '../store/failedDelivery';

/** Rows per read: reading 10k datasets at once would stall the event loop for tens of milliseconds. */
const BATCH = 1000;

/**
 * datasetId → fingerprint of the record the remote last sent (null for imported data), read in batches
 * with the event loop free between them. Only this source's sync writes the org meanwhile.
 */
export async function remoteHashes(store: Store, orgId: string): Promise<Map<string, string | null>> {
  const hashes = new Map<string, string | null>();
  let after = '';
  for (;;) {
    const read = await store.whenIdle(() =>
      store.eachRow(
        'SELECT dataset_id, remote_hash FROM datasets WHERE org_id = ? AND dataset_id > ? ORDER BY dataset_id LIMIT ?',
        [orgId, after, BATCH],
        ([datasetId, hash]) => {
          after = String(datasetId);
          hashes.set(after, hash === null ? null : String(hash));
        },
      ),
    );
    if (read < BATCH) return hashes;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Datasets whose latest status is FAILED or MISSING: the fast poll re-reads them if the remote stops listing them. */
export function troubledDatasets(store: Store, orgId: string): string[] {
  return store.column<string>(
    "SELECT dataset_id FROM datasets WHERE org_id = ? AND status IN ('FAILED', 'MISSING')",
    [orgId],
  );
}

/** The newest FAILED delivery of each FAILED dataset whose tasks are not stored yet. */
export function failedDeliveriesWithoutTasks(store: Store, orgId: string): string[] {
  return store.column<string>(
    `SELECT failed FROM (
       SELECT ${NEWEST_FAILED_DELIVERY} AS failed FROM datasets d WHERE d.org_id = ?1 AND d.status = 'FAILED')
     WHERE failed IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM delivery_tasks t WHERE t.org_id = ?1 AND t.delivery_id = failed)`,
    [orgId],
  );
}

/** The stored fingerprints of the given datasets (those not stored are absent), in batches. */
export async function remoteHashesOf(
  store: Store,
  orgId: string,
  datasetIds: readonly string[],
): Promise<Map<string, string | null>> {
  const hashes = new Map<string, string | null>();
  for (let start = 0; start < datasetIds.length; start += BATCH) {
    const batch = datasetIds.slice(start, start + BATCH);
    await store.whenIdle(() =>
      store.eachRow(
        `SELECT dataset_id, remote_hash FROM datasets WHERE org_id = ? AND dataset_id IN (SELECT value FROM json_each(?))`,
        [orgId, JSON.stringify(batch)],
        ([datasetId, hash]) => hashes.set(String(datasetId), hash === null ? null : String(hash)),
      ),
    );
  }
  return hashes;
}
