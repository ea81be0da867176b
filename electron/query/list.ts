/**
 * The list query (docs/api.md#list): filters, sort and keyset paging on the sort indexes, so a page costs
 * the same at 100k datasets as at 1k. Returns the page body as JSON built by SQLite, in UTF-8 bytes.
 */
import type { Store } from '../store/database';
import { sortColumn } from '../store/schema/sortKeys';
import { selectionSql, selectiveIndex } from './filterSql';
import {
  type Cursor,
  type PagePosition,
  decodePageToken,
  encodePageToken,
  queryFingerprint,
} from './pageToken';
import { pageCacheOf } from './pageCache';
import { recordJsonSql } from './recordSql';
import { type PageRequest, canonicalSelection } from './selection';

/** A page of the v2 list: whole records, each with its latest deliveries. */
export interface ListRequest extends PageRequest {
  latestDeliveriesCount: number;
}

/** What each row of a page becomes: a SQL expression over `d` (JSON text) and its leading parameters. */
export interface Projection {
  select: string;
  params: (string | number)[];
}

export interface Page {
  items: string[];
  nextPageToken: string;
  previousPageToken: string;
}

const RECORD = recordJsonSql({ includeRunDetails: false, eventLimit: '?' });

type Comparison = '<' | '<=' | '>' | '>=';

function comparison(position: PagePosition): Comparison {
  const strict = position.direction === 'next' ? '>' : '<';
  return position.inclusive ? `${strict}=` : strict;
}

/** The rows a position does not cover, seen from its cursor: the way back from an emptied page. */
function opposite(position: PagePosition): PagePosition {
  return {
    ...position,
    direction: position.direction === 'next' ? 'previous' : 'next',
    inclusive: !position.inclusive,
  };
}

/** The page body as UTF-8 JSON; pages repeat cheaply until the data changes (pageCache.ts). */
export function listDatasets(store: Store, request: ListRequest): Buffer {
  const canonical = canonicalSelection(request);
  const key = JSON.stringify([
    request.orgId,
    canonical.filters,
    canonical.sort,
    request.pageSize,
    request.pageToken,
    request.latestDeliveriesCount,
  ]);
  return pageCacheOf(store).get(store, key, () => buildListPage(store, request));
}

/** Builds the page from the database, bypassing the page cache (benchmarks time the query itself). */
export function buildListPage(store: Store, request: ListRequest): Buffer {
  const page = queryPage(store, request, { select: RECORD, params: [request.latestDeliveriesCount] });
  const tail = `],"nextPageToken":${JSON.stringify(page.nextPageToken)},"previousPageToken":${JSON.stringify(
    page.previousPageToken,
  )},"kind":"ops#datasetHealthList"}`;
  return utf8Join('{"items":[', page.items, tail);
}

/**
 * `head`, the items comma-separated and `tail`, encoded straight into one buffer. A page (~200 KiB at
 * 50 × 10) joined as a string would be a large object in V8's heap, kept until a full collection: under
 * list traffic they piled up by the hundred (~120 MB of peak RSS at 10k). A buffer's bytes are outside
 * the heap and freed as soon as its small handle dies, and the socket sends them without encoding.
 */
function utf8Join(head: string, items: readonly string[], tail: string): Buffer {
  let length = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, items.length - 1);
  for (const item of items) length += Buffer.byteLength(item);
  const body = Buffer.allocUnsafeSlow(length);
  let at = body.write(head, 0);
  items.forEach((item, i) => {
    if (i > 0) at = body.writeUInt8(0x2c, at);
    at += body.write(item, at);
  });
  at += body.write(tail, at);
  if (at !== length) throw new Error(`list page: wrote ${at} of ${length} bytes`);
  return body;
}

/** One page of the query in its sort order, each row projected, with the tokens to the pages beside it. */
export function queryPage(store: Store, request: PageRequest, projection: Projection): Page {
  const canonical = canonicalSelection(request);
  const columns = [...request.sort.map((key) => `d.${sortColumn(key)}`), 'd.name_key', 'd.dataset_id'];
  const fingerprint = queryFingerprint(request.orgId, canonical.filters, canonical.sort);
  const cursorOfRow = (pk: number): Cursor | undefined => {
    const row = store.get(`SELECT ${columns.join(', ')} FROM datasets d WHERE d.pk = ? AND d.org_id = ?`, [
      pk,
      request.orgId,
    ]);
    return row ? columns.map((c) => row[c.slice(2)] as string | number) : undefined;
  };
  const position = request.pageToken
    ? decodePageToken(store, fingerprint, request.pageToken, columns.length, cursorOfRow)
    : null;
  const where = selectionSql(request);
  const tuple = `(${columns.join(', ')})`;
  const placeholders = `(${columns.map(() => '?').join(', ')})`;
  const index = selectiveIndex(request.filters);
  const from = `FROM datasets d${index ? ` INDEXED BY ${index}` : ''} WHERE d.org_id = ?${where.sql}`;
  const backwards = position?.direction === 'previous';
  const keyset = position ? ` AND ${tuple} ${comparison(position)} ${placeholders}` : '';
  const order = columns.map((c) => `${c} ${backwards ? 'DESC' : 'ASC'}`).join(', ');

  const rows = store.all(
    `SELECT ${columns.join(', ')}, d.pk AS row_pk, ${projection.select} AS record ${from}${keyset} ORDER BY ${order} LIMIT ?`,
    [...projection.params, request.orgId, ...where.params, ...(position?.cursor ?? []), request.pageSize + 1],
  );
  const more = rows.length > request.pageSize;
  const page = rows.slice(0, request.pageSize);
  if (backwards) page.reverse();

  const cursorOf = (row: (typeof rows)[number]): Cursor =>
    columns.map((c) => row[c.slice(2)] as string | number);
  const anyRow = (at: PagePosition): boolean =>
    store.value<number>(`SELECT 1 ${from} AND ${tuple} ${comparison(at)} ${placeholders} LIMIT 1`, [
      request.orgId,
      ...where.params,
      ...at.cursor,
    ]) !== undefined;
  const token = (at: PagePosition): string => encodePageToken(store, fingerprint, at);

  const first = page[0];
  const last = page[page.length - 1];
  let next: PagePosition | null = null;
  let previous: PagePosition | null = null;
  if (first && last) {
    next = { direction: 'next', cursor: cursorOf(last), inclusive: false, row: Number(last.row_pk) };
    previous = {
      direction: 'previous',
      cursor: cursorOf(first),
      inclusive: false,
      row: Number(first.row_pk),
    };
    // The extra row answers for the direction of travel; an index probe answers for the other.
    if (!(backwards ? anyRow(next) : more)) next = null;
    if (!(backwards ? more : position !== null && anyRow(previous))) previous = null;
  } else if (position) {
    // Rows vanished under the token: offer the way back to whatever lies on the other side.
    const back = opposite(position);
    if (anyRow(back)) {
      if (back.direction === 'next') next = back;
      else previous = back;
    }
  }
  return {
    items: page.map((row) => row.record as string),
    nextPageToken: next ? token(next) : '',
    previousPageToken: previous ? token(previous) : '',
  };
}
