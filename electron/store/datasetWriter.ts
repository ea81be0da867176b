/**
 * The write path for dataset records and tasks, shared by import, demo and sync. Callers wrap a whole
 * batch in `store.transaction` so it commits whole or not at all (DESIGN.md §3).
 */
import type { DatasetRecord, DeliveryEvent, RunDetail, Task, TasksRecord } from '../../shared/schemas';
import { STAGES } from '../../shared/status';
import type { Store } from './database';
import { sortKeyValues } from './sortKeys';

export const DEFAULT_DELIVERIES_PER_DATASET = 100;

export interface WriteOptions {
  /** replace: the record's events become exactly the given ones; merge: add/update by deliveryId. */
  events: 'replace' | 'merge';
  /** Retention: at most this many events per dataset, newest kept. */
  deliveriesPerDataset: number;
}

/** Caches config ids per store: a handful of distinct schedules are shared by thousands of events. */
const configIds = new WeakMap<Store, Map<string, number>>();

function configId(store: Store, config: DatasetRecord['currentProcessingDeadlineConfig']): number {
  let cache = configIds.get(store);
  if (!cache) configIds.set(store, (cache = new Map()));
  const json = JSON.stringify(config);
  const cached = cache.get(json);
  if (cached !== undefined) return cached;
  store.run('INSERT INTO configs (json) VALUES (?) ON CONFLICT (json) DO NOTHING', [json]);
  const id = Number(store.value<number>('SELECT id FROM configs WHERE json = ?', [json]));
  cache.set(json, id);
  return id;
}

const lower = (value: string | null): string => (value ?? '').toLowerCase();

const UPSERT_DATASET = `
INSERT INTO datasets (org_id, dataset_id, legacy_dataset_id, name, cdu_id, cdu_name, data_product_id, data_product_name,
  owner_org_id, supplier_id, supplier_name, config_id, delivery_id, status, latest_ts, next_expected_ts,
  dataset_id_lower, name_lower, data_product_lower, supplier_id_lower, name_key,
  k_status_asc, k_status_desc, k_ts_asc, k_ts_desc)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (org_id, dataset_id) DO UPDATE SET
  legacy_dataset_id = excluded.legacy_dataset_id, name = excluded.name, cdu_id = excluded.cdu_id,
  cdu_name = excluded.cdu_name, data_product_id = excluded.data_product_id,
  data_product_name = excluded.data_product_name, owner_org_id = excluded.owner_org_id,
  supplier_id = excluded.supplier_id, supplier_name = excluded.supplier_name, config_id = excluded.config_id,
  delivery_id = excluded.delivery_id, status = excluded.status, latest_ts = excluded.latest_ts,
  next_expected_ts = excluded.next_expected_ts, dataset_id_lower = excluded.dataset_id_lower,
  name_lower = excluded.name_lower, data_product_lower = excluded.data_product_lower,
  supplier_id_lower = excluded.supplier_id_lower, name_key = excluded.name_key,
  k_status_asc = excluded.k_status_asc, k_status_desc = excluded.k_status_desc,
  k_ts_asc = excluded.k_ts_asc, k_ts_desc = excluded.k_ts_desc
RETURNING pk`;

const UPSERT_EVENT = `
INSERT INTO events (dataset_pk, delivery_id, status, deadline, delivered_at, config_id, run_details)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (dataset_pk, delivery_id) WHERE delivery_id IS NOT NULL DO UPDATE SET
  status = excluded.status, deadline = excluded.deadline, delivered_at = excluded.delivered_at,
  config_id = excluded.config_id, run_details = coalesce(excluded.run_details, events.run_details)`;

/** Keeps the newest `limit` events of a dataset (newest by deadline, then delivered time). */
const TRIM_EVENTS = `
DELETE FROM events WHERE dataset_pk = ?1 AND pk NOT IN (
  SELECT pk FROM events WHERE dataset_pk = ?1 ORDER BY deadline DESC, delivered_at DESC, pk DESC LIMIT ?2)`;

/** Writes one dataset record (and its events); returns the dataset's row key. */
export function writeDataset(
  store: Store,
  orgId: string,
  record: DatasetRecord,
  options: WriteOptions,
): number {
  const keys = sortKeyValues(record.latestDeliveryStatus, record.latestDeliveryTimestamp);
  const pk = Number(
    store.value<number>(UPSERT_DATASET, [
      orgId,
      record.datasetId,
      record.legacyDatasetId,
      record.datasetName,
      record.cduId,
      record.cduName,
      record.dataProductId,
      record.dataProductName,
      record.ownerOrgId,
      record.supplier.id,
      record.supplier.name,
      configId(store, record.currentProcessingDeadlineConfig),
      record.deliveryId,
      record.latestDeliveryStatus,
      record.latestDeliveryTimestamp,
      record.nextExpectedDeliveryTimestamp,
      lower(record.datasetId),
      lower(record.datasetName),
      lower(record.dataProductName),
      lower(record.supplier.id),
      record.datasetName ?? '',
      keys.k_status_asc,
      keys.k_status_desc,
      keys.k_ts_asc,
      keys.k_ts_desc,
    ]),
  );
  if (options.events === 'replace') store.run('DELETE FROM events WHERE dataset_pk = ?', [pk]);
  for (const event of record.deliveryEventList) writeEvent(store, pk, event);
  store.run(TRIM_EVENTS, [pk, options.deliveriesPerDataset]);
  return pk;
}

function writeEvent(store: Store, datasetPk: number, event: DeliveryEvent): void {
  store.run(UPSERT_EVENT, [
    datasetPk,
    event.deliveryId,
    event.status,
    event.deliveryDeadline,
    event.deliveredAt,
    configId(store, event.processingDeadlineConfig),
    event.runDetails === undefined ? null : JSON.stringify(event.runDetails),
  ]);
}

/** Run details of a delivery derived from its tasks: one per stage that has tasks. */
export function runDetailsFromTasks(tasks: TasksRecord): RunDetail[] {
  return STAGES.flatMap((stage) => {
    const group = tasks[stage];
    if (group.tasks.length === 0) return [];
    const starts = group.tasks.map((t) => t.taskStartedAt).filter((t): t is string => t !== null);
    const ends = group.tasks.map((t) => t.taskEndedAt).filter((t): t is string => t !== null);
    return [
      {
        stage,
        runId: group.tasks.find((t) => t.details.runId)?.details.runId ?? null,
        status: group.status,
        startedAt: starts.length ? starts.reduce((a, b) => (a < b ? a : b)) : null,
        endedAt: ends.length ? ends.reduce((a, b) => (a > b ? a : b)) : null,
      },
    ];
  });
}

/** Tasks ordered by scheduledAt (unknown last), then taskId (DESIGN.md §2), whatever order they came in. */
function byScheduleThenId(a: Task, b: Task): number {
  const at = a.scheduledAt ?? '\uffff';
  const bt = b.scheduledAt ?? '\uffff';
  if (at !== bt) return at < bt ? -1 : 1;
  const ai = a.taskId ?? '';
  const bi = b.taskId ?? '';
  return ai < bi ? -1 : ai > bi ? 1 : 0;
}

function ordered(tasks: TasksRecord): TasksRecord {
  const sorted = (group: { tasks: Task[] }): Task[] => [...group.tasks].sort(byScheduleThenId);
  return {
    ingest: { ...tasks.ingest, tasks: sorted(tasks.ingest) },
    normalize: { ...tasks.normalize, tasks: sorted(tasks.normalize) },
    process: { ...tasks.process, tasks: sorted(tasks.process) },
    dispatch: { ...tasks.dispatch, tasks: sorted(tasks.dispatch) },
  };
}

export function writeTasks(store: Store, orgId: string, deliveryId: string, given: TasksRecord): void {
  const tasks = ordered(given);
  store.run(
    `INSERT INTO delivery_tasks (org_id, delivery_id, json, run_details) VALUES (?, ?, ?, ?)
     ON CONFLICT (org_id, delivery_id) DO UPDATE SET json = excluded.json, run_details = excluded.run_details`,
    [orgId, deliveryId, JSON.stringify(tasks), JSON.stringify(runDetailsFromTasks(tasks))],
  );
}

/** True when some dataset of the org has (or had, within retention) this delivery. */
export function hasDelivery(store: Store, orgId: string, deliveryId: string): boolean {
  return (
    store.value<number>(
      `SELECT 1 FROM events e JOIN datasets d ON d.pk = e.dataset_pk WHERE e.delivery_id = ? AND d.org_id = ?
       UNION ALL SELECT 1 FROM datasets WHERE org_id = ? AND delivery_id = ? LIMIT 1`,
      [deliveryId, orgId, orgId, deliveryId],
    ) !== undefined
  );
}

/** Drops tasks of deliveries no dataset of the org retains any more (DESIGN.md §3 retention). */
export function pruneTasks(store: Store, orgId: string): number {
  return store.run(
    `DELETE FROM delivery_tasks WHERE org_id = ?1 AND delivery_id NOT IN (
       SELECT e.delivery_id FROM events e JOIN datasets d ON d.pk = e.dataset_pk
       WHERE d.org_id = ?1 AND e.delivery_id IS NOT NULL
       UNION SELECT delivery_id FROM datasets WHERE org_id = ?1 AND delivery_id IS NOT NULL)`,
    [orgId],
  );
}
