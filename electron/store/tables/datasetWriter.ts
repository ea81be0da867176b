/**
 * The write path for dataset records and tasks, shared by import, demo and sync. Callers wrap a whole
 * batch in `store.transaction` so it commits whole or not at all (docs/storage.md).
 */
import {
  type DatasetRecord,
  type DeadlineConfig,
  type DeliveryEvent,
  type TasksRecord,
  DEADLINE_CONFIG_FIELDS,
} from '../../../shared/schemas';
import { type FailureCause, firstFailure } from '../../../shared/causes';
import type { Store } from '../database';
import { packTasks } from '../schema/tasksBlob';
import { sortKeyValues } from '../schema/sortKeys';
import { newestFailedOf } from '../schema/failedDelivery';

export { DEFAULT_DELIVERIES_PER_DATASET } from './retention';

export interface WriteOptions {
  /** replace: the record's events become exactly the given ones; merge: add/update by deliveryId. */
  events: 'replace' | 'merge';
  /** Retention: at most this many events per dataset, newest kept. */
  deliveriesPerDataset: number;
  /** Sync: fingerprint of the record as the remote sent it (import and demo leave it null). */
  remoteHash?: string | null;
  /** The caller knows the dataset is not stored yet: its events are exactly the record's (a first sync). */
  isNew?: boolean;
  /**
   * With `isNew`: the caller knows no two of the record's events share a deliveryId (an import checks
   * it), so they are inserted as they are, without the merge by deliveryId (which needs the index on it,
   * that an import into an empty store builds once at its end).
   */
  distinctEvents?: boolean;
}

/**
 * Caches config ids per store: a handful of distinct schedules are shared by thousands of events, and
 * one record's events usually share the very same object. A first sync's records come back from its
 * spool as new objects, one per event: the last config's values are compared before its JSON is made
 * (at 100k datasets, 3M JSON strings and WeakMap entries took 8 of the first sync's seconds).
 */
interface ConfigIds {
  byText: Map<string, number>;
  byObject: WeakMap<object, number>;
  last: { config: DeadlineConfig; id: number } | null;
}
const configIds = new WeakMap<Store, ConfigIds>();

/** Normalized configs hold the same fields in the same order: equal values are the same JSON. */
function sameConfig(a: DeadlineConfig, b: DeadlineConfig): boolean {
  for (const field of DEADLINE_CONFIG_FIELDS) if (a[field] !== b[field]) return false;
  return true;
}

function configId(store: Store, config: DeadlineConfig): number {
  let cache = configIds.get(store);
  if (!cache) {
    configIds.set(store, (cache = { byText: new Map(), byObject: new WeakMap(), last: null }));
    // A rolled-back write may have inserted configs that are gone again: forget every id.
    store.onRollback(() => {
      configIds.delete(store);
      sequences.delete(store);
    });
  }
  const last = cache.last;
  if (last !== null && (last.config === config || sameConfig(last.config, config))) return last.id;
  let id = cache.byObject.get(config);
  if (id === undefined) {
    const json = JSON.stringify(config);
    id = cache.byText.get(json);
    if (id === undefined) {
      store.run('INSERT INTO configs (json) VALUES (?) ON CONFLICT (json) DO NOTHING', [json]);
      id = Number(store.value<number>('SELECT id FROM configs WHERE json = ?', [json]));
      cache.byText.set(json, id);
    }
    cache.byObject.set(config, id);
  }
  cache.last = { config, id };
  return id;
}

/** Key of an unknown time in the events' order: below every real time, so it sorts last. */
const EMPTY_TIME = -9e15;
const timeKey = (time: string | null): number => (time === null ? EMPTY_TIME : Date.parse(time));

/** Last tie-break of the events' order: a store-wide write counter (later writes first). */
const sequences = new WeakMap<Store, number>();
/** Takes `count` numbers of the counter; returns the first. */
function takeSeqs(store: Store, count: number): number {
  const first =
    (sequences.get(store) ?? Number(store.value<number>('SELECT coalesce(max(seq), 0) FROM events'))) + 1;
  sequences.set(store, first + count - 1);
  return first;
}

const lower = (value: string | null): string => (value ?? '').toLowerCase();

const UPSERT_DATASET = `
INSERT INTO datasets (org_id, dataset_id, legacy_dataset_id, name, cdu_id, cdu_name, data_product_id, data_product_name,
  owner_org_id, supplier_id, supplier_name, config_id, delivery_id, status, latest_ts, next_expected_ts,
  dataset_id_lower, name_lower, data_product_lower, supplier_id_lower, name_key,
  k_status_asc, k_status_desc, k_ts_asc, k_ts_desc, remote_hash, failed_delivery)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
  k_ts_asc = excluded.k_ts_asc, k_ts_desc = excluded.k_ts_desc, remote_hash = excluded.remote_hash
-- failed_delivery is not taken from the new values: a stored dataset's comes from its events, once written.
RETURNING pk`;

/**
 * A dataset's failed delivery from the events it now has (see failedDelivery.ts); the row is rewritten
 * only when it changes (the FROM is evaluated once per statement).
 */
const REFRESH_FAILED_DELIVERY = `UPDATE datasets SET failed_delivery = now.failed
  FROM (SELECT ${newestFailedOf('?1')} AS failed) AS now
  WHERE pk = ?1 AND failed_delivery IS NOT now.failed`;

/** Events are written this many to a statement: one statement per row costs more than its values. */
const EVENTS_PER_STATEMENT = 32;
const EVENT_COLUMNS = 10;

/** The upsert of `rows` events in one statement (rows apply in order, so a repeated deliveryId updates). */
const upsertEvents = (rows: number): string => `
INSERT INTO events (dataset_pk, delivery_id, status, deadline, delivered_at, config_id, run_details, deadline_key,
  delivered_key, seq)
VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}
ON CONFLICT (delivery_id, dataset_pk) WHERE delivery_id IS NOT NULL DO UPDATE SET
  status = excluded.status, deadline = excluded.deadline, delivered_at = excluded.delivered_at,
  config_id = excluded.config_id, run_details = coalesce(excluded.run_details, events.run_details),
  deadline_key = excluded.deadline_key, delivered_key = excluded.delivered_key
-- An event the remote sent again unchanged is not rewritten: an update moves the row and its index entry
-- even when every value is the same, dirtying pages the journal would then write (docs/storage.md).
WHERE events.status IS NOT excluded.status OR events.deadline IS NOT excluded.deadline
  OR events.delivered_at IS NOT excluded.delivered_at OR events.config_id IS NOT excluded.config_id
  OR (excluded.run_details IS NOT NULL AND events.run_details IS NOT excluded.run_details)`;
const UPSERT_EVENTS = Array.from({ length: EVENTS_PER_STATEMENT + 1 }, (_, rows) => upsertEvents(rows));
const INSERT_EVENTS = UPSERT_EVENTS.map((sql) => sql.slice(0, sql.indexOf('ON CONFLICT')));

/** Keeps the newest `limit` events of a dataset (newest by deadline, then delivered time). */
const TRIM_EVENTS = `
DELETE FROM events WHERE dataset_pk = ?1 AND (deadline_key, delivered_key, seq) < (
  SELECT deadline_key, delivered_key, seq FROM events WHERE dataset_pk = ?1
  ORDER BY deadline_key DESC, delivered_key DESC, seq DESC LIMIT 1 OFFSET ?2 - 1)`;

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
      options.remoteHash ?? null,
      options.isNew ? newestFailedOfNew(record.deliveryEventList, options.deliveriesPerDataset) : null,
    ]),
  );
  if (options.events === 'replace' && !options.isNew)
    store.run('DELETE FROM events WHERE dataset_pk = ?', [pk]);
  writeEvents(
    store,
    pk,
    record.deliveryEventList,
    options.isNew && options.distinctEvents ? INSERT_EVENTS : UPSERT_EVENTS,
  );
  const count = options.isNew
    ? record.deliveryEventList.length
    : Number(store.value<number>('SELECT count(*) FROM events WHERE dataset_pk = ?', [pk]));
  if (count > options.deliveriesPerDataset) keepNewestEvents(store, pk, options.deliveriesPerDataset);
  else if (!options.isNew) store.run(REFRESH_FAILED_DELIVERY, [pk]);
  return pk;
}

/** Retention: keeps the newest `limit` events of a dataset (an import trims once its checks are made). */
export function keepNewestEvents(store: Store, datasetPk: number, limit: number): void {
  store.run(TRIM_EVENTS, [datasetPk, limit]);
  store.run(REFRESH_FAILED_DELIVERY, [datasetPk]);
}

/**
 * The failed delivery a new dataset's events give it, worked out before they are written (a first sync
 * writes 100k datasets: no look back at each). As writeEvents stores them: a deliveryId listed again
 * updates the first listing's row, which keeps its place among equals (its `seq`); events without one
 * are rows of their own; then the newest `limit` are kept. A property test holds it to the SQL.
 */
export function newestFailedOfNew(events: readonly DeliveryEvent[], limit: number): string | null {
  interface Row {
    deliveryId: string | null;
    status: string | null;
    deadline: number;
    delivered: number;
    place: number;
  }
  const rows: Row[] = [];
  const byDelivery = new Map<string, Row>();
  events.forEach((event, index) => {
    const values = {
      status: event.status,
      deadline: timeKey(event.deliveryDeadline),
      delivered: timeKey(event.deliveredAt),
    };
    const had = event.deliveryId === null ? undefined : byDelivery.get(event.deliveryId);
    if (had !== undefined) return void Object.assign(had, values);
    const row = { deliveryId: event.deliveryId, ...values, place: index };
    rows.push(row);
    if (event.deliveryId !== null) byDelivery.set(event.deliveryId, row);
  });
  rows.sort((a, b) => b.deadline - a.deadline || b.delivered - a.delivered || a.place - b.place);
  return rows.slice(0, limit).find((row) => row.status === 'FAILED')?.deliveryId ?? null;
}

function writeEvents(
  store: Store,
  datasetPk: number,
  events: readonly DeliveryEvent[],
  statements: readonly string[],
): void {
  // One record's events number down its list: of two with the same deadline and delivered time, the
  // one listed first (the list is newest first) is newer, and reads back first. An export lists them in
  // that order, so its import stores the same order again (docs/decisions.md "Snapshots").
  if (events.length === 0) return;
  const last = takeSeqs(store, events.length) + events.length - 1;
  for (let start = 0; start < events.length; start += EVENTS_PER_STATEMENT) {
    const batch = events.slice(start, start + EVENTS_PER_STATEMENT);
    const params: (string | number | null)[] = new Array(batch.length * EVENT_COLUMNS);
    let at = 0;
    for (let i = 0; i < batch.length; i++) {
      const event = batch[i]!;
      params[at++] = datasetPk;
      params[at++] = event.deliveryId;
      params[at++] = event.status;
      params[at++] = event.deliveryDeadline;
      params[at++] = event.deliveredAt;
      params[at++] = configId(store, event.processingDeadlineConfig);
      params[at++] = event.runDetails === undefined ? null : JSON.stringify(event.runDetails);
      params[at++] = timeKey(event.deliveryDeadline);
      params[at++] = timeKey(event.deliveredAt);
      params[at++] = last - start - i;
    }
    store.run(statements[batch.length]!, params);
  }
}

export function writeTasks(store: Store, orgId: string, deliveryId: string, given: TasksRecord): void {
  writePackedTasks(store, orgId, deliveryId, packTasks(given), firstFailure(given));
}

const INSERT_TASKS = `INSERT INTO delivery_tasks (org_id, delivery_id, json, fail_stage, fail_code, fail_message,
  fail_at) VALUES (?, ?, ?, ?, ?, ?, ?)`;
const UPSERT_TASKS = `${INSERT_TASKS}
  ON CONFLICT (org_id, delivery_id) DO UPDATE SET json = excluded.json, fail_stage = excluded.fail_stage,
    fail_code = excluded.fail_code, fail_message = excluded.fail_message, fail_at = excluded.fail_at`;
/** The stored row replaced by a new one (a new rowid, above every earlier one: an import's are its own). */
const REPLACE_TASKS = INSERT_TASKS.replace('INSERT INTO', 'INSERT OR REPLACE INTO');

/**
 * Stores a tasks record already in its stored form (tasksBlob.ts), with its first failed task (what
 * causes group by: query/causes.ts), so no look at the causes has to inflate it again. `newRow`: as a
 * new row (store/snapshot/fileLedger.ts tells an import's rows by their rowid).
 */
export function writePackedTasks(
  store: Store,
  orgId: string,
  deliveryId: string,
  packed: Uint8Array,
  failure: FailureCause | null,
  newRow = false,
): void {
  store.run(newRow ? REPLACE_TASKS : UPSERT_TASKS, [
    orgId,
    deliveryId,
    packed,
    failure?.stage ?? null,
    failure?.shortCode ?? null,
    failure?.message ?? null,
    failure?.at ?? null,
  ]);
}

/** True when some dataset of the org has (or had, within retention) this delivery. */
export function hasDelivery(store: Store, orgId: string, deliveryId: string): boolean {
  return (
    store.value<number>(
      // CROSS JOIN keeps the delivery index first: the planner would otherwise walk the org's datasets.
      `SELECT 1 FROM events e CROSS JOIN datasets d ON d.pk = e.dataset_pk
       WHERE e.delivery_id = ?1 AND e.delivery_id IS NOT NULL AND d.org_id = ?2
       UNION ALL SELECT 1 FROM datasets WHERE org_id = ?2 AND delivery_id = ?1 LIMIT 1`,
      [deliveryId, orgId],
    ) !== undefined
  );
}

/** Drops tasks of deliveries no dataset of the org retains any more (docs/architecture.md#retention). */
export function pruneTasks(store: Store, orgId: string): number {
  // One index probe per stored tasks record (far fewer than events).
  return store.run(`DELETE FROM delivery_tasks WHERE org_id = ?1 AND ${ORPHANED_TASKS}`, [orgId]);
}

/** A tasks record (of org ?1) whose delivery no event or dataset of the org names any more. */
const ORPHANED_TASKS = `NOT EXISTS (SELECT 1 FROM events e CROSS JOIN datasets d ON d.pk = e.dataset_pk
                   WHERE e.delivery_id = delivery_tasks.delivery_id AND d.org_id = ?1)
  AND NOT EXISTS (SELECT 1 FROM datasets WHERE org_id = ?1 AND delivery_id = delivery_tasks.delivery_id)`;

/**
 * `pruneTasks` over the `count` tasks records after delivery `after` (null: from the first), in
 * delivery id order; returns the last one looked at, or null when none was left. A sync prunes in such
 * batches, the event loop free between them: the whole org's at once held it for 40 ms a poll at 100k
 * datasets.
 */
export function pruneTasksAfter(
  store: Store,
  orgId: string,
  after: string | null,
  count: number,
): string | null {
  const from = `(?2 IS NULL OR delivery_id > ?2)`;
  const last = store.value<string>(
    `SELECT max(delivery_id) FROM (SELECT delivery_id FROM delivery_tasks
       WHERE org_id = ?1 AND ${from} ORDER BY delivery_id LIMIT ?3)`,
    [orgId, after, count],
  );
  if (last === null || last === undefined) return null;
  store.run(
    `DELETE FROM delivery_tasks WHERE org_id = ?1 AND ${from} AND delivery_id <= ?3 AND ${ORPHANED_TASKS}`,
    [orgId, after, last],
  );
  return last;
}

/** Removes a dataset with its events (tasks of its deliveries go with the next `pruneTasks`). */
export function deleteDataset(store: Store, orgId: string, datasetId: string): boolean {
  return store.run('DELETE FROM datasets WHERE org_id = ? AND dataset_id = ?', [orgId, datasetId]) > 0;
}
