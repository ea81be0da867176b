/**
 * The native baseline of docs/architecture.md#performance-budgets, run as its own process: `node --import tsx bench/nativeServer.ts
 * <db file> <org id>`. better-sqlite3 over the same database bytes, node:http, one prepared query per
 * page with the record JSON built by SQLite: the list's own SELECT for the first page in default order.
 * Prints `Native baseline listening on http://127.0.0.1:<port>`.
 */
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import { recordJsonSql } from '../electron/query/recordSql';

const [file, orgId] = process.argv.slice(2);
if (!file || !orgId) {
  process.stderr.write('usage: nativeServer.ts <database file> <org id>\n');
  process.exit(2);
}

// Exactly the record expression of electron/query/list.ts.
const RECORD = recordJsonSql({ includeRunDetails: false, eventLimit: '?' });

const db = new Database(file, { readonly: true });
const firstPage = db
  .prepare<[number, string, number], string>(
    `SELECT ${RECORD} AS record FROM datasets d WHERE d.org_id = ?
     ORDER BY d.name_key ASC, d.dataset_id ASC LIMIT ?`,
  )
  .pluck();

// Later pages by keyset, as our page tokens do: `after` is base64url JSON of [name_key, dataset_id].
const laterPage = db
  .prepare<[number, string, string, string, number], string>(
    `SELECT ${RECORD} AS record FROM datasets d WHERE d.org_id = ? AND (d.name_key, d.dataset_id) > (?, ?)
     ORDER BY d.name_key ASC, d.dataset_id ASC LIMIT ?`,
  )
  .pluck();

const intParam = (params: URLSearchParams, name: string, fallback: number): number => {
  const value = Number(params.get(name) ?? fallback);
  return Number.isInteger(value) && value >= 0 ? value : fallback;
};

const server = createServer((request, response) => {
  const params = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams;
  const pageSize = intParam(params, 'pageSize', 50) || 50;
  const deliveries = intParam(params, 'latestDeliveriesCount', 10);
  // pageSize + 1 rows, as the list asks for one more to know whether there is a next page.
  const after = params.get('after');
  const cursor = after ? (JSON.parse(Buffer.from(after, 'base64url').toString()) as [string, string]) : null;
  const rows = cursor
    ? laterPage.all(deliveries, orgId, cursor[0], cursor[1], pageSize + 1)
    : firstPage.all(deliveries, orgId, pageSize + 1);
  const body = `{"items":[${rows.slice(0, pageSize).join(',')}],"nextPageToken":"","previousPageToken":"","kind":"ops#datasetHealthList"}`;
  response.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  response.end(body);
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`Native baseline listening on http://127.0.0.1:${port}\n`);
});

const stop = (): void => {
  server.close(() => {
    db.close();
    process.exit(0);
  });
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
