/**
 * Delivery history as the on-call layer reads it (docs/architecture.md#the-on-call-layer: deadline clock, upcoming, reliability):
 * each dataset's facts with a signature that changes whenever its record does, and its deliveries as
 * bare (deadline, delivered, status) triples, newest first — far cheaper than the records' JSON. The
 * knowledge layer keeps them in memory and re-reads only the datasets whose signature moved.
 */
import type { DeadlineConfig } from '../../shared/schemas';
import type { Store } from '../store/database';

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
  /** Changes whenever the stored record does (the remote's fingerprint, else the latest delivery's facts). */
  signature: string;
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
 * Every dataset of the org with its schedule and signature, one indexed read. `configs` keeps one object
 * per distinct config across reads (what is keyed on it — the clock's schedule keys — stays valid).
 */
export function orgDatasetFacts(
  store: Store,
  orgId: string,
  configs: Map<string, DeadlineConfig> = new Map(),
): DatasetFacts[] {
  if (configs.size > 50_000) configs.clear();
  const facts: DatasetFacts[] = [];
  store.eachRow(
    `SELECT d.pk, d.dataset_id, d.name, d.supplier_id, d.supplier_name, d.data_product_name, d.status,
            c.json, d.remote_hash, d.delivery_id, d.latest_ts, d.next_expected_ts, d.config_id
       FROM datasets d JOIN configs c ON c.id = d.config_id
      WHERE d.org_id = ?`,
    [orgId],
    (row) => {
      facts.push({
        pk: Number(row[0]),
        datasetId: String(row[1]),
        name: text(row[2]),
        supplierId: text(row[3]),
        supplierName: text(row[4]),
        dataProductName: text(row[5]),
        status: text(row[6]),
        config: readConfig(String(row[7]), configs),
        // An imported record has no remote fingerprint until a sync writes it again.
        signature: row[8] !== null ? String(row[8]) : JSON.stringify(row.slice(6, 7).concat(row.slice(9))),
      });
    },
  );
  return facts;
}

/** One delivery: deadline and delivered time in epoch ms (NaN when unknown), and its status. */
export type DeliveryVisit = (pk: number, deadline: number, delivered: number, status: string | null) => void;

/** Below every real time: how the store keys an unknown time (store/tables/datasetWriter.ts). */
const UNKNOWN_TIME_BELOW = -8e15;

/**
 * The deliveries of the datasets with these pks (at most a few hundred: one bound parameter each), each
 * dataset's newest first, as the events table is clustered: one index seek per dataset, so a handful
 * of changed datasets spread over a large org reads only theirs.
 */
export function eachDelivery(store: Store, pks: readonly number[], visit: DeliveryVisit): number {
  if (pks.length === 0) return 0;
  return store.eachRow(
    `SELECT dataset_pk, deadline_key, delivered_key, status FROM events
      WHERE dataset_pk IN (${pks.map(() => '?').join(', ')})
      ORDER BY dataset_pk, deadline_key DESC, delivered_key DESC, seq DESC`,
    [...pks],
    (row) => {
      const deadline = Number(row[1]);
      const delivered = Number(row[2]);
      visit(
        Number(row[0]),
        deadline < UNKNOWN_TIME_BELOW ? NaN : deadline,
        delivered < UNKNOWN_TIME_BELOW ? NaN : delivered,
        text(row[3]),
      );
    },
  );
}
