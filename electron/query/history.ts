/**
 * Delivery history as the on-call layer reads it (docs/architecture.md#the-on-call-layer: deadline clock, upcoming, reliability):
 * each dataset's signature (a text that changes whenever its record does), then the facts and the
 * deliveries of the datasets whose signature moved, as bare (deadline, delivered, status code) triples,
 * newest first — far cheaper than the records' JSON. The knowledge layer keeps them in memory in
 * columns and re-reads only what changed.
 */
import type { DeadlineConfig } from '../../shared/schemas';
import type { Store } from '../store/database';

/** Delivery statuses as small numbers (the history's typed arrays hold them; the query maps them). */
export const STATUS_CODE = {
  UNKNOWN: 0,
  HEALTHY: 1,
  DELIVERED_LATE: 2,
  MISSING: 3,
  FAILED: 4,
  IN_PROGRESS: 5,
} as const;
export type StatusCode = (typeof STATUS_CODE)[keyof typeof STATUS_CODE];

/** What the clock and the statistics need of one dataset. */
export interface DatasetFacts {
  pk: number;
  datasetId: string;
  name: string | null;
  supplierId: string | null;
  supplierName: string | null;
  dataProductName: string | null;
  status: string | null;
  config: DeadlineConfig;
}

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

const EMPTY_CONFIG: DeadlineConfig = {
  minute: '',
  hour: '',
  dayOfTheMonth: '',
  month: '',
  dayOfWeek: '',
  year: '',
  timezone: '',
  cronExpression: '',
};

/** The stored config JSON as a complete DeadlineConfig (a field it lacks is empty). */
function readConfig(json: string, cache: Map<string, DeadlineConfig>): DeadlineConfig {
  let config = cache.get(json);
  if (config === undefined) {
    const parsed = JSON.parse(json) as Partial<Record<keyof DeadlineConfig, unknown>>;
    config = { ...EMPTY_CONFIG };
    for (const key of Object.keys(EMPTY_CONFIG) as (keyof DeadlineConfig)[])
      if (typeof parsed[key] === 'string') config[key] = parsed[key];
    cache.set(json, config);
  }
  return config;
}

/**
 * The signature of a stored dataset: the remote's fingerprint of the record it last sent (it covers every
 * field), else — an imported record has none until a sync writes it again — every column the history
 * reads, quoted (so NULL and '' differ). SQLite's ifnull stops at the first non-null argument.
 */
const SIGNATURE = `ifnull(remote_hash, quote(dataset_id) || quote(name) || quote(supplier_id) ||
  quote(supplier_name) || quote(data_product_name) || quote(status) || quote(delivery_id) ||
  quote(latest_ts) || quote(next_expected_ts) || quote(config_id))`;

/**
 * The org's datasets with pk > `afterPk`, in pk order, at most `limit`: each one's pk and signature.
 * The rowid range is walked (`+org_id` keeps SQLite off the org index, whose order would need a sort of
 * the whole org per page), so a page costs its own rows, however large the org.
 */
export function datasetSignatures(
  store: Store,
  orgId: string,
  afterPk: number,
  limit: number,
  visit: (pk: number, signature: string) => void,
): number {
  return store.eachRow(
    `SELECT pk, ${SIGNATURE} FROM datasets WHERE +org_id = ? AND pk > ? ORDER BY pk LIMIT ?`,
    [orgId, afterPk, limit],
    (row) => visit(Number(row[0]), String(row[1])),
  );
}

/**
 * The facts of the org's datasets with these pks, in pk order (a pk the org no longer has is left out).
 * `configs` keeps one object per distinct config across reads (what is keyed on it — the clock's
 * schedule keys — stays valid).
 */
export function datasetFactsOf(
  store: Store,
  orgId: string,
  pks: readonly number[],
  configs: Map<string, DeadlineConfig>,
  visit: (facts: DatasetFacts) => void,
): number {
  if (pks.length === 0) return 0;
  if (configs.size > 50_000) configs.clear();
  return store.eachRow(
    `SELECT d.pk, d.dataset_id, d.name, d.supplier_id, d.supplier_name, d.data_product_name, d.status, c.json
       FROM datasets d JOIN configs c ON c.id = d.config_id
      WHERE d.pk IN (SELECT value FROM json_each(?)) AND +d.org_id = ?
      ORDER BY d.pk`,
    [JSON.stringify(pks), orgId],
    (row) =>
      visit({
        pk: Number(row[0]),
        datasetId: String(row[1]),
        name: text(row[2]),
        supplierId: text(row[3]),
        supplierName: text(row[4]),
        dataProductName: text(row[5]),
        status: text(row[6]),
        config: readConfig(String(row[7]), configs),
      }),
  );
}

/** One delivery: deadline and delivered time in epoch ms (NaN when unknown), and its status code. */
export type DeliveryVisit = (pk: number, deadline: number, delivered: number, code: StatusCode) => void;

/** Below every real time: how the store keys an unknown time (store/tables/datasetWriter.ts). */
const UNKNOWN_TIME_BELOW = -8e15;

/**
 * The deliveries of the datasets with these pks (a few hundred at most: one statement reads them all),
 * each dataset's newest first, as the events table is clustered: one index seek per dataset, so a handful
 * of changed datasets spread over a large org reads only theirs. The status comes as its code (an
 * unknown or missing one is UNKNOWN), so no text is made per delivery.
 */
export function eachDelivery(store: Store, pks: readonly number[], visit: DeliveryVisit): number {
  if (pks.length === 0) return 0;
  return store.eachRow(
    `SELECT dataset_pk, deadline_key, delivered_key,
            CASE status WHEN 'HEALTHY' THEN ${STATUS_CODE.HEALTHY}
                        WHEN 'DELIVERED_LATE' THEN ${STATUS_CODE.DELIVERED_LATE}
                        WHEN 'MISSING' THEN ${STATUS_CODE.MISSING}
                        WHEN 'FAILED' THEN ${STATUS_CODE.FAILED}
                        WHEN 'IN_PROGRESS' THEN ${STATUS_CODE.IN_PROGRESS}
                        ELSE ${STATUS_CODE.UNKNOWN} END
       FROM events
      WHERE dataset_pk IN (SELECT value FROM json_each(?))
      ORDER BY dataset_pk, deadline_key DESC, delivered_key DESC, seq DESC`,
    [JSON.stringify(pks)],
    (row) => {
      const deadline = Number(row[1]);
      const delivered = Number(row[2]);
      visit(
        Number(row[0]),
        deadline < UNKNOWN_TIME_BELOW ? NaN : deadline,
        delivered < UNKNOWN_TIME_BELOW ? NaN : delivered,
        Number(row[3]) as StatusCode,
      );
    },
  );
}
