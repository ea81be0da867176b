/**
 * Incidents (docs/decisions.md "Incidents"), read from the store: the org's live incidents (kept by
 * store/schema/incidents.ts in every commit that changes what is troubled), each with its failures troubled
 * now, their acknowledgements, and the datasets' names as last synced. One query over the live failures
 * (an index range), so it stays current by being cheap: the window, the local API and the alerts each
 * ask when they need it.
 */
import {
  type AcknowledgementView,
  type CauseDataset,
  type Incident,
  type ParsedCause,
  parseCauseId,
} from '../../shared/causes';
import { STAGES } from '../../shared/status';
import { openAcknowledgement, openAcknowledgements } from '../store/tables/acknowledgements';
import type { Row, Store } from '../store/database';
import { FAILED_DELIVERY, PROBLEM_DELIVERY } from '../store/schema/failedDelivery';
import { classifyTrouble } from '../store/schema/troubles';

export { classifyTrouble };

const TROUBLED = new Set(['FAILED', 'MISSING']);

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

/** The failed delivery's first failed task, stored with its tasks, as SQL over a FAILED dataset row `d`. */
const FAILED_TASKS = `SELECT 1 FROM delivery_tasks t WHERE t.org_id = d.org_id AND t.delivery_id = ${FAILED_DELIVERY}`;

/**
 * A WHERE condition over dataset row `d` selecting the datasets of a cause now: the same rule as
 * classifyTrouble, for filters (the datasets list's "cause").
 */
export function causeMatchSql(cause: ParsedCause): { sql: string; params: string[] } {
  if (cause.kind === 'missing')
    return {
      sql: `d.status = 'MISSING' AND coalesce(d.supplier_id, '') = ?`,
      params: [cause.supplierId ?? ''],
    };
  if (cause.kind === 'failed')
    return {
      sql: `d.status = 'FAILED' AND EXISTS (${FAILED_TASKS} AND t.fail_stage = ? AND coalesce(t.fail_code, '') = ?)`,
      params: [cause.stage, cause.shortCode ?? ''],
    };
  const stages = STAGES.map((stage) => `'${stage}'`).join(', ');
  return {
    sql: `d.status = 'FAILED' AND NOT EXISTS (${FAILED_TASKS} AND t.fail_stage IN (${stages}))`,
    params: [],
  };
}

/**
 * A WHERE condition over dataset row `d`: FAILED or MISSING with no acknowledgement that holds now (one
 * naming its problem delivery and status, as troubledOf and the sync's ending of acknowledgements judge).
 */
export const UNACKNOWLEDGED_SQL = `d.status IN ('FAILED', 'MISSING') AND NOT EXISTS (SELECT 1 FROM acknowledgements a
  WHERE a.org_id = d.org_id AND a.dataset_id = d.dataset_id AND a.ended_at IS NULL AND a.status = d.status
    AND a.delivery_id = ${PROBLEM_DELIVERY})`;

/**
 * The incidents' failures, with their datasets as last synced and each failure's first failed task;
 * without `details`, the failures alone (a fifteenth of the time at 100k datasets: the datasets' and
 * tasks' rows are a random page each).
 */
function failureRows(
  store: Store,
  orgId: string,
  where: string,
  params: (string | null)[],
  details = true,
): Row[] {
  if (!details)
    return store.all(
      `SELECT i.incident_id, i.cause_id, i.title, i.first_failure_at, i.last_failure_at, i.ended_at,
         f.dataset_id, f.delivery_id, f.status, f.failure_at, f.ended_at AS failure_ended
       FROM incidents i
       JOIN incident_failures f ON f.org_id = i.org_id AND f.incident_id = i.incident_id
       WHERE i.org_id = ? AND ${where}
       ORDER BY f.dataset_id`,
      [orgId, ...params],
    );
  return store.all(
    `SELECT i.incident_id, i.cause_id, i.title, i.first_failure_at, i.last_failure_at, i.ended_at,
       f.dataset_id, f.delivery_id, f.status, f.failure_at, f.ended_at AS failure_ended,
       d.name, d.data_product_name, d.supplier_id, d.supplier_name, d.status AS now_status, t.fail_message
     FROM incidents i
     JOIN incident_failures f ON f.org_id = i.org_id AND f.incident_id = i.incident_id
     LEFT JOIN datasets d ON d.org_id = i.org_id AND d.dataset_id = f.dataset_id
     LEFT JOIN delivery_tasks t ON t.org_id = i.org_id AND t.delivery_id = f.delivery_id
     WHERE i.org_id = ? AND ${where}
     ORDER BY d.name_key, f.dataset_id`,
    [orgId, ...params],
  );
}

function datasetOf(row: Row, kind: Incident['kind'], acks: Map<string, AcknowledgementView>): CauseDataset {
  const datasetId = String(row.dataset_id);
  const deliveryId = text(row.delivery_id) || null;
  const status = String(row.status);
  const ack = acks.get(datasetId);
  return {
    datasetId,
    datasetName: text(row.name),
    dataProductName: text(row.data_product_name),
    supplierId: text(row.supplier_id),
    supplierName: text(row.supplier_name),
    status,
    deliveryId,
    since: String(row.failure_at),
    message: kind === 'failed' ? text(row.fail_message) : null,
    // An acknowledgement of an earlier delivery or status no longer holds (the sync ends it at its commit).
    acknowledgement: ack && ack.deliveryId === (deliveryId ?? '') && ack.status === status ? ack : null,
  };
}

/** A stored cause id's parts; one this version cannot read is `unknown`. */
export function parsedCause(causeId: string): ParsedCause {
  try {
    return parseCauseId(causeId);
  } catch {
    return { kind: 'unknown' };
  }
}

/** Incidents from their failure rows (grouped by incident, in the rows' order of names). */
function incidentsOf(rows: readonly Row[], acks: Map<string, AcknowledgementView>): Incident[] {
  const byId = new Map<string, { row: Row; live: CauseDataset[]; over: CauseDataset[] }>();
  for (const row of rows) {
    const incidentId = String(row.incident_id);
    let group = byId.get(incidentId);
    if (group === undefined) {
      group = { row, live: [], over: [] };
      byId.set(incidentId, group);
    }
    const kind = parsedCause(String(row.cause_id)).kind;
    const dataset = datasetOf(row, kind, acks);
    if (row.failure_ended === null || row.failure_ended === undefined) group.live.push(dataset);
    // Over and its dataset not troubled now: recovered (one that failed again is troubled, not recovered).
    else if (!TROUBLED.has(String(row.now_status))) group.over.push({ ...dataset, acknowledgement: null });
  }
  return [...byId.entries()].map(([incidentId, { row, live, over }]) => {
    // Unacknowledged first (they need someone), then by name (the rows came by name).
    live.sort((a, b) => Number(a.acknowledgement !== null) - Number(b.acknowledgement !== null));
    // Each dataset once: live ones, then recovered ones not live again (an incident keeps a dataset's
    // first failure beside its current one).
    const liveIds = new Set(live.map((dataset) => dataset.datasetId));
    const recovered = new Map<string, CauseDataset>();
    for (const dataset of over)
      if (!liveIds.has(dataset.datasetId)) recovered.set(dataset.datasetId, dataset);
    const suppliers = new Map<string, Incident['suppliers'][number]>();
    for (const dataset of [...live, ...recovered.values()]) {
      const key = dataset.supplierId ?? '';
      const supplier = suppliers.get(key) ?? { id: dataset.supplierId, name: dataset.supplierName, count: 0 };
      supplier.count += 1;
      suppliers.set(key, supplier);
    }
    let representative: CauseDataset | null = null;
    for (const dataset of live)
      if (representative === null || dataset.since > representative.since) representative = dataset;
    return {
      ...headerOf(incidentId, row),
      count: live.length,
      unacknowledged: live.filter((dataset) => dataset.acknowledgement === null).length,
      recovered: recovered.size,
      suppliers: [...suppliers.values()].sort(
        (a, b) => b.count - a.count || (a.name ?? '').localeCompare(b.name ?? ''),
      ),
      firstFailureAt: String(row.first_failure_at),
      lastFailureAt: String(row.last_failure_at),
      endedAt: text(row.ended_at),
      representative: representative && {
        datasetId: representative.datasetId,
        datasetName: representative.datasetName,
        deliveryId: representative.deliveryId,
        message: representative.message,
      },
      datasets: live,
    };
  });
}

/** Live incidents someone must still own first, then the most recent failure first (docs/decisions.md "Incidents"). */
export function compareIncidents(a: Incident, b: Incident): number {
  return (
    Number(a.endedAt !== null) - Number(b.endedAt !== null) ||
    Number(a.unacknowledged === 0) - Number(b.unacknowledged === 0) ||
    b.lastFailureAt.localeCompare(a.lastFailureAt) ||
    a.incidentId.localeCompare(b.incidentId)
  );
}

/**
 * The org's live incidents (with `includeEnded`, the ended ones kept after them), in the Triage view's
 * order. `details: false` leaves the datasets' names, suppliers and messages out (null), for a caller
 * that shows only a few of them and reads those itself (the handoff's first rows: failMessages).
 */
export function listIncidents(
  store: Store,
  orgId: string,
  options: { includeEnded?: boolean; details?: boolean } = {},
): Incident[] {
  const acks = openAcknowledgements(store, orgId);
  const where = options.includeEnded === true ? '1' : 'i.ended_at IS NULL';
  const rows = failureRows(store, orgId, where, [], options.details ?? true);
  return incidentsOf(rows, acks).sort(compareIncidents);
}

/** Who a dataset is, as last synced. */
export interface DatasetNames {
  datasetName: string | null;
  supplierId: string | null;
  supplierName: string | null;
  dataProductName: string | null;
}

/** The names of these datasets of the org (those not stored are absent), a seek each. */
export function datasetNames(
  store: Store,
  orgId: string,
  datasetIds: readonly string[],
): Map<string, DatasetNames> {
  const rows = store.all(
    `SELECT d.dataset_id, d.name, d.supplier_id, d.supplier_name, d.data_product_name FROM json_each(?2) j
     CROSS JOIN datasets d ON d.org_id = ?1 AND d.dataset_id = j.value`,
    [orgId, JSON.stringify(datasetIds)],
  );
  return new Map(
    rows.map((row) => [
      String(row.dataset_id),
      {
        datasetName: text(row.name),
        supplierId: text(row.supplier_id),
        supplierName: text(row.supplier_name),
        dataProductName: text(row.data_product_name),
      },
    ]),
  );
}

/** The first failed task's message of each of these deliveries that has one stored, by delivery id. */
export function failMessages(
  store: Store,
  orgId: string,
  deliveryIds: readonly string[],
): Map<string, string> {
  const rows = store.all(
    // CROSS JOIN: a seek per delivery asked (SQLite would otherwise scan the org's tasks for each).
    `SELECT t.delivery_id, t.fail_message FROM json_each(?2) j
     CROSS JOIN delivery_tasks t ON t.org_id = ?1 AND t.delivery_id = j.value
     WHERE t.fail_message IS NOT NULL`,
    [orgId, JSON.stringify(deliveryIds)],
  );
  return new Map(rows.map((row) => [String(row.delivery_id), String(row.fail_message)]));
}

/** A failure by its dataset and delivery. */
export interface FailureKey {
  datasetId: string;
  deliveryId: string;
}

/** A live failure's place in its incident, as the alerts name it. */
export interface FailurePlace {
  incident: IncidentHeader;
  supplierId: string | null;
  supplierName: string | null;
  /** Its first failed task's message (a failed cause's failure), else null. */
  message: string | null;
}

/**
 * The live incident of each of these FAILED failures that one holds live, by delivery id: a seek per
 * failure, where listing the org's incidents read every failure of a 100k org (half a second a poll).
 */
export function failurePlaces(
  store: Store,
  orgId: string,
  failures: readonly FailureKey[],
): Map<string, FailurePlace> {
  const places = new Map<string, FailurePlace>();
  if (failures.length === 0) return places;
  const rows = store.all(
    `SELECT h.delivery_id, i.incident_id, i.cause_id, i.title, d.supplier_id, d.supplier_name, t.fail_message
     FROM json_each(?2) j
     CROSS JOIN incident_failures h ON h.org_id = ?1 AND h.dataset_id = json_extract(j.value, '$[0]')
       AND h.delivery_id = json_extract(j.value, '$[1]')
     JOIN incidents i ON i.org_id = ?1 AND i.incident_id = h.incident_id
     LEFT JOIN datasets d ON d.org_id = ?1 AND d.dataset_id = h.dataset_id
     LEFT JOIN delivery_tasks t ON t.org_id = ?1 AND t.delivery_id = h.delivery_id
     WHERE h.status = 'FAILED' AND h.ended_at IS NULL AND i.ended_at IS NULL`,
    [orgId, JSON.stringify(failures.map((failure) => [failure.datasetId, failure.deliveryId]))],
  );
  for (const row of rows) {
    const incident = headerOf(String(row.incident_id), row);
    places.set(String(row.delivery_id), {
      incident,
      supplierId: text(row.supplier_id),
      supplierName: text(row.supplier_name),
      message: incident.kind === 'failed' ? text(row.fail_message) : null,
    });
  }
  return places;
}

/** How many of an incident's live failures are FAILED now (not MISSING). */
export function failingCount(store: Store, orgId: string, incidentId: string): number {
  return Number(
    store.value<number>(
      `SELECT count(*) FROM incident_failures
       WHERE org_id = ? AND incident_id = ? AND ended_at IS NULL AND status = 'FAILED'`,
      [orgId, incidentId],
    ),
  );
}

/** One incident, live or ended (its failures troubled now, and how many are over); null if unknown. */
export function getIncident(store: Store, orgId: string, incidentId: string): Incident | null {
  const acks = openAcknowledgements(store, orgId);
  return incidentsOf(failureRows(store, orgId, 'i.incident_id = ?', [incidentId]), acks)[0] ?? null;
}

/** What names an incident (its cause and title), without its failures; null if unknown. */
export type IncidentHeader = Pick<
  Incident,
  'incidentId' | 'causeId' | 'kind' | 'title' | 'stage' | 'shortCode'
>;

/**
 * An incident's header alone: one row by its key. The alerts name the former incident of each failure
 * that recovered while held, and reading all of a large incident's failures for each of them cost a
 * whole minute at 100k datasets.
 */
export function getIncidentHeader(store: Store, orgId: string, incidentId: string): IncidentHeader | null {
  const row = store.get('SELECT cause_id, title FROM incidents WHERE org_id = ? AND incident_id = ?', [
    orgId,
    incidentId,
  ]);
  return row === undefined ? null : headerOf(incidentId, row);
}

/** An incident's header from its row's `cause_id` and `title`. */
function headerOf(incidentId: string, row: Row): IncidentHeader {
  const cause = parsedCause(String(row.cause_id));
  return {
    incidentId,
    causeId: String(row.cause_id),
    kind: cause.kind,
    title: String(row.title),
    stage: cause.kind === 'failed' ? cause.stage : null,
    shortCode: cause.kind === 'failed' ? cause.shortCode : null,
  };
}

/** The incident a troubled dataset's failure belongs to now, with its entry; null when it is not troubled. */
export function incidentOfDataset(
  store: Store,
  orgId: string,
  datasetId: string,
): { incidentId: string; causeId: string; title: string; dataset: CauseDataset } | null {
  const [row] = failureRows(store, orgId, 'f.dataset_id = ? AND f.ended_at IS NULL', [datasetId]);
  if (!row) return null;
  const acknowledgement = openAcknowledgement(store, orgId, datasetId);
  const acks = new Map(acknowledgement ? [[datasetId, acknowledgement]] : []);
  const kind = parsedCause(String(row.cause_id)).kind;
  return {
    incidentId: String(row.incident_id),
    causeId: String(row.cause_id),
    title: String(row.title),
    dataset: datasetOf(row, kind, acks),
  };
}
