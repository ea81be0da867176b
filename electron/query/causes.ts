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
  UNKNOWN_CAUSE_ID,
  causeTitle,
  failedCauseId,
  missingCauseId,
} from '../../shared/causes';
import { STAGES, type Stage } from '../../shared/status';
import { openAcknowledgements } from '../store/acknowledgements';
import type { Row, Store } from '../store/database';
import { PROBLEM_DELIVERY } from '../store/failedDelivery';

const KIND_ORDER: Record<CauseKind, number> = { failed: 0, unknown: 1, missing: 2 };

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

function isStage(value: string | null): value is Stage {
  return value !== null && (STAGES as readonly string[]).includes(value);
}

interface Troubled {
  dataset: CauseDataset;
  causeId: string;
  kind: CauseKind;
  stage: Stage | null;
  shortCode: string | null;
}

function troubledOf(row: Row, acks: Map<string, AcknowledgementView>): Troubled {
  const status = String(row.status);
  const stage = text(row.fail_stage);
  const shortCode = text(row.fail_code);
  const deliveryId = text(row.problem);
  const known = row.known !== null && row.known !== undefined;
  const kind: CauseKind = status === 'MISSING' ? 'missing' : known && isStage(stage) ? 'failed' : 'unknown';
  const supplierId = text(row.supplier_id);
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
  const causeId =
    kind === 'missing'
      ? missingCauseId(supplierId)
      : kind === 'failed'
        ? failedCauseId(stage as Stage, shortCode)
        : UNKNOWN_CAUSE_ID;
  return { dataset, causeId, kind, stage: kind === 'failed' ? (stage as Stage) : null, shortCode };
}

/** The org's FAILED and MISSING datasets, each with its problem delivery, its time and its failure. */
function troubledRows(store: Store, orgId: string): Row[] {
  return store.all(
    `SELECT p.*, e.deadline, e.delivered_at, t.org_id AS known, t.fail_stage, t.fail_code, t.fail_message
     FROM (SELECT d.pk, d.dataset_id, d.name, d.name_key, d.data_product_name, d.supplier_id, d.supplier_name,
             d.status, ${PROBLEM_DELIVERY} AS problem
           FROM datasets d WHERE d.org_id = ?1 AND d.status IN ('FAILED', 'MISSING')) p
     LEFT JOIN events e ON e.delivery_id = p.problem AND e.dataset_pk = p.pk
     LEFT JOIN delivery_tasks t ON t.org_id = ?1 AND t.delivery_id = p.problem
     ORDER BY p.name_key, p.dataset_id`,
    [orgId],
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
  const parsed =
    first.kind === 'failed'
      ? { kind: 'failed' as const, stage: first.stage!, shortCode: first.shortCode }
      : first.kind === 'missing'
        ? { kind: 'missing' as const, supplierId: first.dataset.supplierId }
        : { kind: 'unknown' as const };
  return {
    causeId: first.causeId,
    kind: first.kind,
    title: causeTitle(parsed, first.dataset.supplierName),
    stage: first.stage,
    shortCode: first.kind === 'failed' ? first.shortCode : null,
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
  const cause = listCauses(store, orgId).find((candidate) =>
    candidate.datasets.some((dataset) => dataset.datasetId === datasetId),
  );
  if (!cause) return null;
  return {
    causeId: cause.causeId,
    title: cause.title,
    dataset: cause.datasets.find((dataset) => dataset.datasetId === datasetId)!,
  };
}
