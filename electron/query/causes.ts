/**
 * Causes (DESIGN.md §11), computed from the store: the org's FAILED datasets grouped by the first failed
 * task of their failed delivery (stage, shortCode; kept beside each stored tasks record), FAILED ones
 * whose tasks are not stored yet as "unknown cause", and MISSING ones grouped by supplier. One query over
 * the troubled datasets (an index range), so it stays current by being cheap: the window, the local API
 * and the alerts each ask when they need it.
 */
import {
  type AcknowledgementView,
  type Cause,
  type CauseDataset,
  type CauseKind,
  type ParsedCause,
  UNKNOWN_CAUSE_ID,
  causeTitle,
  failedCauseId,
  missingCauseId,
} from '../../shared/causes';
import { STAGES, type Stage } from '../../shared/status';
import { openAcknowledgement, openAcknowledgements } from '../store/acknowledgements';
import type { Row, Store } from '../store/database';
import { FAILED_DELIVERY, PROBLEM_DELIVERY } from '../store/failedDelivery';

const KIND_ORDER: Record<CauseKind, number> = { failed: 0, unknown: 1, missing: 2 };

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

function isStage(value: string | null): value is Stage {
  return value !== null && (STAGES as readonly string[]).includes(value);
}

/** What a troubled dataset's stored failure says: its status, and its failed delivery's first failed task. */
export interface TroubleFacts {
  status: string;
  /** The failed delivery's tasks are stored. */
  known: boolean;
  stage: string | null;
  shortCode: string | null;
  supplierId: string | null;
  supplierName: string | null;
}

export interface Classified {
  causeId: string;
  kind: CauseKind;
  title: string;
  stage: Stage | null;
  shortCode: string | null;
}

/**
 * The grouping rule, in one place: MISSING by supplier; FAILED by its first failed task's stage and
 * shortCode; FAILED with no stored tasks, or tasks with no failed task, as the unknown cause.
 */
export function classifyTrouble(facts: TroubleFacts): Classified {
  const { status, stage, shortCode } = facts;
  if (status === 'MISSING') {
    const cause: ParsedCause = { kind: 'missing', supplierId: facts.supplierId };
    return {
      causeId: missingCauseId(facts.supplierId),
      kind: 'missing',
      title: causeTitle(cause, facts.supplierName),
      stage: null,
      shortCode: null,
    };
  }
  if (facts.known && isStage(stage)) {
    return {
      causeId: failedCauseId(stage, shortCode),
      kind: 'failed',
      title: causeTitle({ kind: 'failed', stage, shortCode }),
      stage,
      shortCode,
    };
  }
  return {
    causeId: UNKNOWN_CAUSE_ID,
    kind: 'unknown',
    title: causeTitle({ kind: 'unknown' }),
    stage: null,
    shortCode: null,
  };
}

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

interface Troubled extends Classified {
  dataset: CauseDataset;
}

function troubledOf(row: Row, acks: Map<string, AcknowledgementView>): Troubled {
  const status = String(row.status);
  const deliveryId = text(row.problem);
  const supplierId = text(row.supplier_id);
  const classified = classifyTrouble({
    status,
    known: row.known !== null && row.known !== undefined,
    stage: text(row.fail_stage),
    shortCode: text(row.fail_code),
    supplierId,
    supplierName: text(row.supplier_name),
  });
  const { kind } = classified;
  const datasetId = String(row.dataset_id);
  const ack = acks.get(datasetId);
  const dataset: CauseDataset = {
    datasetId,
    datasetName: text(row.name),
    dataProductName: text(row.data_product_name),
    supplierId,
    supplierName: text(row.supplier_name),
    status,
    deliveryId,
    since: status === 'MISSING' ? text(row.deadline) : (text(row.delivered_at) ?? text(row.deadline)),
    message: kind === 'failed' ? text(row.fail_message) : null,
    // An acknowledgement of an earlier delivery or status no longer holds (the sync ends it at its commit).
    acknowledgement: ack && ack.deliveryId === deliveryId && ack.status === status ? ack : null,
  };
  return { ...classified, dataset };
}

/** The org's FAILED and MISSING datasets, each with its problem delivery, its time and its failure. */
function troubledRows(store: Store, orgId: string, datasetId: string | null = null): Row[] {
  return store.all(
    `SELECT p.*, e.deadline, e.delivered_at, t.org_id AS known, t.fail_stage, t.fail_code, t.fail_message
     FROM (SELECT d.pk, d.dataset_id, d.name, d.name_key, d.data_product_name, d.supplier_id, d.supplier_name,
             d.status, ${PROBLEM_DELIVERY} AS problem
           FROM datasets d WHERE d.org_id = ?1 AND d.status IN ('FAILED', 'MISSING')
             ${datasetId === null ? '' : 'AND d.dataset_id = ?2'}) p
     LEFT JOIN events e ON e.delivery_id = p.problem AND e.dataset_pk = p.pk
     LEFT JOIN delivery_tasks t ON t.org_id = ?1 AND t.delivery_id = p.problem
     ORDER BY p.name_key, p.dataset_id`,
    datasetId === null ? [orgId] : [orgId, datasetId],
  );
}

const later = (a: string | null, b: string | null): boolean => a !== null && (b === null || a > b);

function causeOf(members: Troubled[]): Cause {
  const [first] = members as [Troubled, ...Troubled[]];
  const datasets = members.map((member) => member.dataset);
  // Unacknowledged first (they need someone), then by name (the rows came by name).
  datasets.sort((a, b) => Number(a.acknowledgement !== null) - Number(b.acknowledgement !== null));
  const suppliers = new Map<string, Cause['suppliers'][number]>();
  let firstSeenAt: string | null = null;
  let lastSeenAt: string | null = null;
  let representative: CauseDataset | null = null;
  for (const dataset of datasets) {
    const key = dataset.supplierId ?? '';
    const supplier = suppliers.get(key) ?? { id: dataset.supplierId, name: dataset.supplierName, count: 0 };
    supplier.count += 1;
    suppliers.set(key, supplier);
    if (dataset.since !== null && (firstSeenAt === null || dataset.since < firstSeenAt))
      firstSeenAt = dataset.since;
    if (later(dataset.since, lastSeenAt)) lastSeenAt = dataset.since;
    if (representative === null || later(dataset.since, representative.since)) representative = dataset;
  }
  return {
    causeId: first.causeId,
    kind: first.kind,
    title: first.title,
    stage: first.stage,
    shortCode: first.shortCode,
    count: datasets.length,
    unacknowledged: datasets.filter((dataset) => dataset.acknowledgement === null).length,
    suppliers: [...suppliers.values()].sort(
      (a, b) => b.count - a.count || (a.name ?? '').localeCompare(b.name ?? ''),
    ),
    firstSeenAt,
    lastSeenAt,
    representative: representative && {
      datasetId: representative.datasetId,
      datasetName: representative.datasetName,
      deliveryId: representative.deliveryId,
      message: representative.message,
    },
    datasets,
  };
}

/** Worst first: failures before missing data, causes someone must still own first, then the largest. */
export function compareCauses(a: Cause, b: Cause): number {
  return (
    KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
    Number(a.unacknowledged === 0) - Number(b.unacknowledged === 0) ||
    b.count - a.count ||
    (b.lastSeenAt ?? '').localeCompare(a.lastSeenAt ?? '') ||
    a.causeId.localeCompare(b.causeId)
  );
}

/** The org's causes, worst first. */
export function listCauses(store: Store, orgId: string): Cause[] {
  const acks = openAcknowledgements(store, orgId);
  const groups = new Map<string, Troubled[]>();
  for (const row of troubledRows(store, orgId)) {
    const troubled = troubledOf(row, acks);
    const group = groups.get(troubled.causeId);
    if (group) group.push(troubled);
    else groups.set(troubled.causeId, [troubled]);
  }
  return [...groups.values()].map(causeOf).sort(compareCauses);
}

/** The cause a troubled dataset belongs to now, with its dataset entry; null when it is not FAILED or MISSING. */
export function causeOfDataset(
  store: Store,
  orgId: string,
  datasetId: string,
): { causeId: string; title: string; dataset: CauseDataset } | null {
  // One dataset's row, not the org's causes (the dataset view and `ack` ask this for one dataset).
  const [row] = troubledRows(store, orgId, datasetId);
  if (!row) return null;
  const acknowledgement = openAcknowledgement(store, orgId, datasetId);
  const acks = new Map(acknowledgement ? [[datasetId, acknowledgement]] : []);
  const { causeId, title, dataset } = troubledOf(row, acks);
  return { causeId, title, dataset };
}
