/**
 * The datasets window's queries (DESIGN.md §6), through the same filters, sort indexes and keyset pages
 * as the v2 list (list.ts), projected to what a table row shows: a few fields and the strip of recent
 * statuses instead of whole records, so 10k rows cross to the window in a few pages.
 */
import type { DatasetRow, RowsPage, StatusCounts } from '../../shared/rpc';
import { ROW_STRIP_LENGTH } from '../../shared/rpc';
import { DELIVERY_STATUSES, isDeliveryStatus } from '../../shared/status';
import type { Store } from '../store/database';
import { filtersSql, searchSql } from './filterSql';
import { queryPage } from './list';
import { jsonObjectSql } from './recordSql';
import type { PageRequest, Selection } from './selection';

const STRIP = `concat('[', (SELECT group_concat(json_quote(s), ',') FROM (
    SELECT e.status AS s FROM events e WHERE e.dataset_pk = d.pk
    ORDER BY e.deadline_key DESC, e.delivered_key DESC, e.seq DESC LIMIT ?)), ']')`;

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
]);

/** One page of the selection as table rows. */
export function listRows(store: Store, request: PageRequest): RowsPage {
  const page = queryPage(store, request, { select: ROW, params: [ROW_STRIP_LENGTH] });
  return { rows: JSON.parse(`[${page.items.join(',')}]`) as DatasetRow[], nextPageToken: page.nextPageToken };
}

/**
 * Datasets per latest status under the query without its status filters (so each chip says what
 * choosing it would show), and how many the whole query matches.
 */
export function statusCounts(store: Store, selection: Selection): StatusCounts {
  const { filters } = selection;
  const search = searchSql(selection.search);
  const others = filtersSql(filters.filter((filter) => filter.field !== 'deliveryStatus'));
  const all = filtersSql(filters);
  const byStatus = {
    NONE: 0,
    ...Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, 0])),
  } as StatusCounts['byStatus'];
  const grouped = store.all(
    `SELECT d.status AS status, count(*) AS n FROM datasets d WHERE d.org_id = ?${others.sql}${search.sql} GROUP BY d.status`,
    [selection.orgId, ...others.params, ...search.params],
  );
  for (const row of grouped) {
    const status = typeof row.status === 'string' && isDeliveryStatus(row.status) ? row.status : 'NONE';
    byStatus[status] += Number(row.n);
  }
  const total =
    store.value<number>(`SELECT count(*) FROM datasets d WHERE d.org_id = ?${all.sql}${search.sql}`, [
      selection.orgId,
      ...all.params,
      ...search.params,
    ]) ?? 0;
  return { byStatus, total };
}
