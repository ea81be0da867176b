/**
 * The alerts' memory (DESIGN.md §5): which failed deliveries were already announced (or deliberately
 * silenced, or held for the end of quiet hours). It lives in the store, so a delivery is announced at
 * most once, ever — across re-syncs and restarts. What is not in it yet and is FAILED is what to
 * announce, so a crash between a sync's commit and its announcement loses nothing either.
 */
import type { Store } from './database';
import { FAILED_DELIVERY } from './failedDelivery';

/** A dataset whose latest delivery FAILED, and that delivery. */
export interface FailedDataset {
  orgId: string;
  datasetId: string;
  datasetName: string | null;
  deliveryId: string;
}

/** What became of an announced delivery: kept so it is never announced again, and held ones released. */
export type Outcome = 'notified' | 'summarized' | 'snoozed' | 'paused' | 'held';

/** The org's FAILED datasets whose failed delivery was never announced, by name. */
export function unannouncedFailures(store: Store, orgId: string): FailedDataset[] {
  return store
    .all(
      `SELECT f.dataset_id, f.name, f.failed FROM (
         SELECT d.dataset_id, d.name, ${FAILED_DELIVERY} AS failed, d.name_key
         FROM datasets d WHERE d.org_id = ? AND d.status = 'FAILED') f
       WHERE f.failed IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM announced_deliveries a WHERE a.org_id = ? AND a.delivery_id = f.failed)
       ORDER BY f.name_key, f.dataset_id`,
      [orgId, orgId],
    )
    .map((row) => ({
      orgId,
      datasetId: String(row.dataset_id),
      datasetName: row.name === null ? null : String(row.name),
      deliveryId: String(row.failed),
    }));
}

/**
 * Records what became of these deliveries in one transaction (a held one may later become notified or
 * summarized). Bookkeeping the API does not serve: no new data revision.
 */
export function remember(
  store: Store,
  datasets: readonly FailedDataset[],
  outcome: Outcome,
  now: Date,
): void {
  if (datasets.length === 0) return;
  store.transaction(
    () => {
      for (const dataset of datasets)
        store.run(
          `INSERT INTO announced_deliveries (org_id, delivery_id, dataset_id, announced_at, outcome)
           VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (org_id, delivery_id) DO UPDATE SET outcome = excluded.outcome,
             announced_at = excluded.announced_at`,
          [dataset.orgId, dataset.deliveryId, dataset.datasetId, now.toISOString(), outcome],
        );
    },
    { dataChange: false },
  );
}

/** Failures held during quiet hours, oldest first, with the dataset's current name. */
export function heldFailures(store: Store): FailedDataset[] {
  return store
    .all(
      `SELECT a.org_id, a.dataset_id, a.delivery_id, d.name FROM announced_deliveries a
       LEFT JOIN datasets d ON d.org_id = a.org_id AND d.dataset_id = a.dataset_id
       WHERE a.outcome = 'held' ORDER BY a.announced_at, a.org_id, a.dataset_id`,
    )
    .map((row) => ({
      orgId: String(row.org_id),
      datasetId: String(row.dataset_id),
      datasetName: row.name === null || row.name === undefined ? null : String(row.name),
      deliveryId: String(row.delivery_id),
    }));
}
