/**
 * The datasets window's queries (docs/architecture.md#the-window), through the same filters, sort indexes and keyset pages
 * as the v2 list (list.ts), projected to what a table row shows: a few fields and the strip of recent
 * statuses instead of whole records, so 10k rows cross to the window in a few pages. A FAILED or
 * MISSING row also carries its cause and its acknowledgement (docs/architecture.md#acknowledgements), and the triage filters
 * (a cause, unacknowledged only) narrow rows and counts alike.
 */
import type { AcknowledgementView } from '../../shared/causes';
import type { MirroredRow, StatusCounts } from '../../shared/rows';
import { ROW_STRIP_LENGTH } from '../../shared/rows';
import { DELIVERY_STATUSES, isDeliveryStatus } from '../../shared/status';
import type { Store } from '../store/database';
import { PROBLEM_DELIVERY } from '../store/schema/failedDelivery';
import { classifyTrouble } from './incidents';
import { filtersSql, searchSql, triageSql } from './filterSql';
import { queryPage } from './list';
import { jsonObjectSql } from './recordSql';
import type { PageRequest, Selection } from './selection';

const STRIP = `concat('[', (SELECT group_concat(json_quote(s), ',') FROM (
    SELECT e.status AS s FROM events e WHERE e.dataset_pk = d.pk
    ORDER BY e.deadline_key DESC, e.delivered_key DESC, e.seq DESC LIMIT ?)), ']')`;

/**
 * A FAILED or MISSING row's trouble: its problem delivery, whether that delivery's tasks are stored and
 * their first failed task, and the dataset's open acknowledgement (judged against the problem delivery
 * in listRows). Only the page's rows evaluate it; other statuses are null at once.
 */
const TROUBLE = `CASE WHEN d.status IN ('FAILED', 'MISSING') THEN (SELECT ${jsonObjectSql([
  ['problem', { text: 'p.problem' }],
  ['known', { json: "CASE WHEN t.org_id IS NULL THEN 'false' ELSE 'true' END" }],
  ['stage', { text: 't.fail_stage' }],
  ['code', { text: 't.fail_code' }],
  ['ackDelivery', { text: 'a.delivery_id' }],
  ['ackStatus', { text: 'a.status' }],
  ['ackCause', { text: 'a.cause_id' }],
  ['ackNote', { text: 'a.note' }],
  ['ackBy', { text: 'a.by_name' }],
  ['ackAt', { text: 'a.at' }],
])}
  FROM (SELECT ${PROBLEM_DELIVERY} AS problem) p
  LEFT JOIN delivery_tasks t ON t.org_id = d.org_id AND t.delivery_id = p.problem
  LEFT JOIN acknowledgements a ON a.org_id = d.org_id AND a.dataset_id = d.dataset_id AND a.ended_at IS NULL)
  ELSE 'null' END`;

interface Trouble {
  problem: string | null;
  known: boolean;
  stage: string | null;
  code: string | null;
  ackDelivery: string | null;
  ackStatus: string | null;
  ackCause: string | null;
  ackNote: string | null;
  ackBy: string | null;
  ackAt: string | null;
}

type RawRow = Omit<MirroredRow, 'causeId' | 'causeTitle' | 'acknowledgement'> & { trouble: Trouble | null };

function rowOf(orgId: string, raw: RawRow): MirroredRow {
  const { trouble, ...row } = raw;
  if (trouble === null || row.status === null)
    return { ...row, causeId: null, causeTitle: null, acknowledgement: null };
  const cause = classifyTrouble({
    status: row.status,
    known: trouble.known,
    stage: trouble.stage,
    shortCode: trouble.code,
    supplierId: row.supplierId,
    supplierName: row.supplierName,
  });
  // An acknowledgement of an earlier delivery or status no longer holds (as in causes.ts).
  const holds =
    trouble.ackBy !== null && trouble.ackDelivery === trouble.problem && trouble.ackStatus === row.status;
  const acknowledgement: AcknowledgementView | null = holds
    ? {
        orgId,
        datasetId: row.datasetId,
        deliveryId: trouble.ackDelivery!,
        status: trouble.ackStatus!,
        causeId: trouble.ackCause,
        note: trouble.ackNote,
        by: trouble.ackBy!,
        at: trouble.ackAt!,
        endedAt: null,
        endReason: null,
      }
    : null;
  return { ...row, causeId: cause.causeId, causeTitle: cause.title, acknowledgement };
}

const ROW = jsonObjectSql([
  ['datasetId', { text: 'd.dataset_id' }],
  ['datasetName', { text: 'd.name' }],
  ['dataProductName', { text: 'd.data_product_name' }],
  ['supplierId', { text: 'd.supplier_id' }],
  ['supplierName', { text: 'd.supplier_name' }],
  ['status', { text: 'd.status' }],
  ['deliveryId', { text: 'd.delivery_id' }],
  ['latestDeliveryTimestamp', { time: 'd.latest_ts' }],
  ['nextExpectedDeliveryTimestamp', { time: 'd.next_expected_ts' }],
  ['strip', { json: STRIP }],
  ['trouble', { json: TROUBLE }],
]);

/** One page of the selection as table rows. */
/** A page of the store's rows (the RPC adds the deadline clock's overdue mark to each). */
export function listRows(store: Store, request: PageRequest): { rows: MirroredRow[]; nextPageToken: string } {
  const page = queryPage(store, request, { select: ROW, params: [ROW_STRIP_LENGTH] });
  const raw = JSON.parse(`[${page.items.join(',')}]`) as RawRow[];
  return { rows: raw.map((row) => rowOf(request.orgId, row)), nextPageToken: page.nextPageToken };
}

/**
 * Datasets per latest status under the query without its status filters (so each chip says what
 * choosing it would show), and how many the whole query matches.
 */
export function statusCounts(store: Store, selection: Selection): StatusCounts {
  const { filters } = selection;
  const search = searchSql(selection.search);
  const triage = triageSql(selection);
  const others = filtersSql(filters.filter((filter) => filter.field !== 'deliveryStatus'));
  const all = filtersSql(filters);
  const byStatus = {
    NONE: 0,
    ...Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, 0])),
  } as StatusCounts['byStatus'];
  const grouped = store.all(
    `SELECT d.status AS status, count(*) AS n FROM datasets d WHERE d.org_id = ?${others.sql}${search.sql}${triage.sql} GROUP BY d.status`,
    [selection.orgId, ...others.params, ...search.params, ...triage.params],
  );
  for (const row of grouped) {
    const status = typeof row.status === 'string' && isDeliveryStatus(row.status) ? row.status : 'NONE';
    byStatus[status] += Number(row.n);
  }
  const total =
    store.value<number>(
      `SELECT count(*) FROM datasets d WHERE d.org_id = ?${all.sql}${search.sql}${triage.sql}`,
      [selection.orgId, ...all.params, ...search.params, ...triage.params],
    ) ?? 0;
  return { byStatus, total };
}
