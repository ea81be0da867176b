/** What the sync reads of the mirror before a cycle: each dataset's remote fingerprint and status. */
import type { Store } from '../store/database';

/** datasetId → fingerprint of the record the remote last sent (null for imported data). */
export function remoteHashes(store: Store, orgId: string): Map<string, string | null> {
  const hashes = new Map<string, string | null>();
  for (const row of store.all('SELECT dataset_id, remote_hash FROM datasets WHERE org_id = ?', [orgId])) {
    hashes.set(String(row.dataset_id), row.remote_hash === null ? null : String(row.remote_hash));
  }
  return hashes;
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
       SELECT (SELECT e.delivery_id FROM events e WHERE e.dataset_pk = d.pk AND e.status = 'FAILED'
               ORDER BY e.deadline_key DESC, e.delivered_key DESC, e.seq DESC LIMIT 1) AS failed
       FROM datasets d WHERE d.org_id = ?1 AND d.status = 'FAILED')
     WHERE failed IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM delivery_tasks t WHERE t.org_id = ?1 AND t.delivery_id = failed)`,
    [orgId],
  );
}
