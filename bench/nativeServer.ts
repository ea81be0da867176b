/**
 * The native baseline of DESIGN.md §10, run as its own process: `node --import tsx bench/nativeServer.ts
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

// Exactly the record expression of electron/query/list.ts, which swaps the joined config for a lookup
// (a no-op when recordSql.ts no longer emits `json(c.json)`).
const RECORD = recordJsonSql({ includeRunDetails: false, eventLimit: '?' }).replace(
  'json(c.json)',
  'json((SELECT json FROM configs WHERE id = d.config_id))',
);

const db = new Database(file, { readonly: true });
const firstPage = db
  .prepare<[number, string, number], string>(
    `SELECT ${RECORD} AS record FROM datasets d WHERE d.org_id = ?
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
  const rows = firstPage.all(deliveries, orgId, pageSize + 1);
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
