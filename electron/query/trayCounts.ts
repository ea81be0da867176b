/**
 * What the tray shows of the synced orgs' datasets (docs/architecture.md#the-tray): how many there are by latest status,
 * the first FAILED ones nobody acknowledged by name, and the acknowledged ones (docs/architecture.md#acknowledgements). The alerts decide what snoozes leave out and what colour it makes.
 */
import type { FailedDataset } from '../store/tables/announcements';
import type { Row, Store } from '../store/database';
import { FAILED_DELIVERY } from '../store/schema/failedDelivery';

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

/** A FAILED dataset as the tray lists it: who acknowledged its failure (null: nobody yet). */
export interface TrayFailed extends FailedDataset {
  acknowledgedBy: string | null;
  /** The acknowledgement's note, if it has one. */
  acknowledgedNote: string | null;
}

/** SQL: dataset row `d`'s failure has an acknowledgement that holds (same delivery, still FAILED). */
const ACKNOWLEDGED = `EXISTS (SELECT 1 FROM acknowledgements k WHERE k.org_id = d.org_id
  AND k.dataset_id = d.dataset_id AND k.ended_at IS NULL AND k.status = 'FAILED'
  AND k.delivery_id = ${FAILED_DELIVERY})`;

/** A row of either list below: the dataset, its failed delivery ('' when none is stored), who acknowledged it. */
const trayFailed = (row: Row): TrayFailed => ({
  orgId: String(row.org_id),
  datasetId: String(row.dataset_id),
  datasetName: row.name === null ? null : String(row.name),
  deliveryId: row.delivery === null ? '' : String(row.delivery),
  acknowledgedBy: row.by_name === null ? null : String(row.by_name),
  acknowledgedNote: row.note == null ? null : String(row.note),
});

/**
 * The orgs' first `limit` FAILED datasets by name that nobody acknowledged, each with the delivery it is
 * about ('' when none is stored). In name order through the status index, so it stops at `limit`.
 */
export function failedDatasets(store: Store, orgIds: readonly string[], limit: number): TrayFailed[] {
  if (orgIds.length === 0) return [];
  return store
    .all(
      `SELECT d.org_id, d.dataset_id, d.name, ${FAILED_DELIVERY} AS delivery, NULL AS by_name, NULL AS note
       FROM datasets d WHERE d.org_id IN (${marks(orgIds)}) AND d.status = 'FAILED' AND NOT ${ACKNOWLEDGED}
       ORDER BY d.name_key, d.dataset_id LIMIT ?`,
      [...orgIds, limit],
    )
    .map(trayFailed);
}

/** SQL (with `marks` of the orgs): the orgs' FAILED datasets `d` whose failure has an open acknowledgement `k`. */
const ACKNOWLEDGED_FROM = (orgs: string): string =>
  // From the open acknowledgements (a few), not the FAILED datasets (6k at 100k): CROSS JOIN keeps that order.
  `FROM acknowledgements k CROSS JOIN datasets d ON d.org_id = k.org_id AND d.dataset_id = k.dataset_id
   WHERE k.org_id IN (${orgs}) AND k.ended_at IS NULL AND k.status = 'FAILED'
     AND d.status = 'FAILED' AND k.delivery_id = ${FAILED_DELIVERY}`;

/**
 * The orgs' first `limit` FAILED datasets by name whose failure is acknowledged (read from the open
 * acknowledgements): what the tray's menu lists of them.
 */
export function acknowledgedFailures(store: Store, orgIds: readonly string[], limit: number): TrayFailed[] {
  if (orgIds.length === 0 || limit <= 0) return [];
  return store
    .all(
      `SELECT d.org_id, d.dataset_id, d.name, k.delivery_id AS delivery, k.by_name, k.note
       ${ACKNOWLEDGED_FROM(marks(orgIds))}
       ORDER BY d.name_key, d.dataset_id LIMIT ?`,
      [...orgIds, limit],
    )
    .map(trayFailed);
}

/**
 * How many of the orgs' FAILED datasets have their failure acknowledged, leaving out `except` (the
 * snoozed ones: a few, each an org and a dataset id).
 */
export function acknowledgedCount(
  store: Store,
  orgIds: readonly string[],
  except: readonly { orgId: string; datasetId: string }[] = [],
): number {
  if (orgIds.length === 0) return 0;
  const left = except.map(() => ' AND NOT (d.org_id = ? AND d.dataset_id = ?)').join('');
  return Number(
    store.value<number>(`SELECT count(*) ${ACKNOWLEDGED_FROM(marks(orgIds))}${left}`, [
      ...orgIds,
      ...except.flatMap((key) => [key.orgId, key.datasetId]),
    ]) ?? 0,
  );
}
