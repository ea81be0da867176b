/**
 * The datasets window's queries (DESIGN.md §6), through the same filters, sort indexes and keyset pages
 * as the v2 list (list.ts), projected to what a table row shows: a few fields and the strip of recent
 * statuses instead of whole records, so 10k rows cross to the window in a few pages.
 */
import { FilterError, parseFilter, printFilter, type Filter } from '../../shared/filter';
import type { DatasetQuery, DatasetRow, RowsPage, StatusCounts } from '../../shared/rpc';
import { ROW_STRIP_LENGTH } from '../../shared/rpc';
import { SortError, parseSort, printSort, type SortKey } from '../../shared/sort';
import { DELIVERY_STATUSES, isDeliveryStatus } from '../../shared/status';
import type { Store } from '../store/database';
import { InvalidArgument } from './errors';
import { filtersSql, searchSql } from './filterSql';
import { queryPage } from './list';
import { jsonObjectSql } from './recordSql';

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

interface ParsedQuery {
  filters: Filter[];
  sort: SortKey[];
}

/** The query's filter and sort texts parsed as the v2 API parses them; a bad one is an InvalidArgument. */
function parseQuery(query: DatasetQuery): ParsedQuery {
  const filters = query.filters.map((text) => {
    try {
      return parseFilter(text);
    } catch (error) {
      if (error instanceof FilterError) throw new InvalidArgument('filter', error.message);
      throw error;
    }
  });
  try {
    return { filters, sort: parseSort(query.sort) };
  } catch (error) {
    if (error instanceof SortError) throw new InvalidArgument('sort', error.message);
    throw error;
  }
}

export function listRows(
  store: Store,
  query: DatasetQuery & { pageToken: string | null; pageSize: number },
): RowsPage {
  const { filters, sort } = parseQuery(query);
  const page = queryPage(
    store,
    {
      orgId: query.orgId,
      filters,
      filterTexts: filters.map(printFilter),
      search: query.search,
      sort,
      sortText: printSort(sort),
      pageSize: query.pageSize,
      pageToken: query.pageToken,
    },
    { select: ROW, params: [ROW_STRIP_LENGTH] },
  );
  return { rows: JSON.parse(`[${page.items.join(',')}]`) as DatasetRow[], nextPageToken: page.nextPageToken };
}

/**
 * Datasets per latest status under the query without its status filters (so each chip says what
 * choosing it would show), and how many the whole query matches.
 */
export function statusCounts(store: Store, query: DatasetQuery): StatusCounts {
  const { filters } = parseQuery(query);
  const search = searchSql(query.search);
  const others = filtersSql(filters.filter((filter) => filter.field !== 'deliveryStatus'));
  const all = filtersSql(filters);
  const byStatus = {
    NONE: 0,
    ...Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, 0])),
  } as StatusCounts['byStatus'];
  const grouped = store.all(
    `SELECT d.status AS status, count(*) AS n FROM datasets d WHERE d.org_id = ?${others.sql}${search.sql} GROUP BY d.status`,
    [query.orgId, ...others.params, ...search.params],
  );
  for (const row of grouped) {
    const status = typeof row.status === 'string' && isDeliveryStatus(row.status) ? row.status : 'NONE';
    byStatus[status] += Number(row.n);
  }
  const total =
    store.value<number>(`SELECT count(*) FROM datasets d WHERE d.org_id = ?${all.sql}${search.sql}`, [
      query.orgId,
      ...all.params,
      ...search.params,
    ]) ?? 0;
  return { byStatus, total };
}
