/**
 * Hostile HTTP requests against `serve --ui`'s one port (issue #15 item 6), as a security regression
 * table: each row is the raw bytes a client sends, and the answer it must get — status, body shape
 * (docs/api.md#errors `{status, code, message}` for the v2 API and anything refused before a route, the RPC's
 * `{error: {code, message}}` under /rpc/), and the message. Raw sockets, not inject(): Node's own HTTP
 * parser answers several of these before Fastify sees a request.
 */
import { connect } from 'node:net';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEngine, runEngine } from '../../../electron/engine/runEngine';
import { exportSnapshot } from '../../../electron/query/exportSnapshot';
import { sessionCookie } from '../../../electron/rpc/sessions';
import { createApiKey, listApiKeys } from '../../../electron/store/tables/apiKeys';
import { Store } from '../../../electron/store/database';
import { importSnapshot } from '../../../electron/store/snapshot/importSnapshot';
import { memorySettings } from '../../../electron/store/tables/settings';
import { envSecretKeeper } from '../../../electron/sync/secrets';
import { ErrorBody } from '../../../shared/schemas';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { fixtureRecords, fixtureTasks } from '../../helpers/fixtures';

let store: Store;
let engine: RunningEngine;
let server: { port: number };
let cookie: string;
let key: string;

/** What a refused request must leave as it was: the org's data and the keys. */
function stored(): string {
  let text = '';
  exportSnapshot(store, 'acme', (chunk) => (text += chunk));
  // A valid key's last use is recorded on every request it makes, refused or not: not data.
  return text + JSON.stringify(listApiKeys(store).map(({ lastUsedAt: _used, ...key }) => key));
}

// `serve --ui` as it runs: the real engine, RPC handlers and web UI on one port, over imported data.
beforeAll(async () => {
  store = await Store.open({ dataDir: null });
  const datasets = fixtureRecords(20, 5);
  const failed = datasets.find((d) => d.latestDeliveryStatus === 'FAILED') ?? datasets[0]!;
  importSnapshot(
    store,
    'acme',
    {
      datasets,
      tasks: new Map([[failed.deliveryId!, fixtureTasks(failed.deliveryId!, failed.datasetId)]]),
    },
    { now: new Date(), deliveriesPerDataset: 100 },
  );
  key = createApiKey(store, 'acme', 'hostile', new Date()).key;
  engine = await runEngine({
    purpose: 'serve',
    store,
    dataDir: tempDir('dh-hostile-'),
    settings: memorySettings(),
    port: 0,
    now: () => new Date(),
    secrets: envSecretKeeper({}),
    logger: false,
    demoWhenNoSources: false,
    ui: true,
  });
  server = engine.api;
  const signIn = await fetch(engine.uiUrl!, { redirect: 'manual' });
  cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  expect(cookie.startsWith(`${sessionCookie(server.port)}=`)).toBe(true);
});

afterAll(async () => {
  await engine.stop();
  await store.close();
  removeTempDirs();
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends raw bytes and reads the whole answer; a server that does not answer within 2 s fails the row. */
function send(request: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no complete answer within 2 s; got ${JSON.stringify(Buffer.concat(chunks).toString())}`),
      );
    }, 2000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1] ?? 0), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(request);
  });
}

/** A request as bytes; `Connection: close` so the server ends the socket after its answer. */
function raw(
  method: string,
  path: string | Buffer,
  headers: Record<string, string> = {},
  body?: string,
): Buffer {
  const all = {
    Host: `127.0.0.1:${server.port}`,
    Connection: 'close',
    ...(body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) }),
    ...headers,
  };
  const head = Object.entries(all)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return Buffer.concat([
    Buffer.from(`${method} `),
    Buffer.from(path),
    Buffer.from(` HTTP/1.1\r\n${head}\r\n${body ?? ''}`),
  ]);
}

const LIST = '/v2/ops/health/datasets/deliveries';
const JSON_TYPE = { 'Content-Type': 'application/json' };
const AUTH = () => ({ Authorization: `Bearer ${key}` });

interface Row {
  name: string;
  request: () => Buffer;
  status: number;
  /** The v2 error code, or the RPC error code prefixed `rpc:`. */
  code: string;
  message: RegExp;
  headers?: Record<string, string>;
}

const ROWS: Row[] = [
  // Refused by Node's HTTP parser, before any route (answered in the v2 shape, then closed).
  {
    name: 'headers over 16 KB',
    request: () => raw('GET', LIST, { 'X-Padding': 'a'.repeat(17 * 1024) }),
    status: 431,
    code: 'INVALID_ARGUMENT',
    message: /^the request headers are over the 16 KB limit$/,
  },
  {
    name: 'a raw NUL in the request line',
    request: () => raw('GET', Buffer.from('/v2/\0x', 'latin1')),
    status: 400,
    code: 'INVALID_ARGUMENT',
    message: /^not a valid HTTP\/1\.1 request: .*printable ASCII/,
  },
  {
    name: 'raw non-ASCII bytes in the request line',
    request: () => raw('GET', Buffer.from('/v2/ops/health/datasets/é/deliveries', 'utf8')),
    status: 400,
    code: 'INVALID_ARGUMENT',
    message: /^not a valid HTTP\/1\.1 request: .*printable ASCII/,
  },
  {
    name: 'an unknown method (FOO)',
    request: () => raw('FOO', LIST),
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    message: /^the method is not allowed: the API answers GET and HEAD/,
    headers: { allow: 'GET, HEAD' },
  },
  {
    name: 'not HTTP at all',
    request: () => Buffer.from('hello\r\n\r\n'),
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    message: /is not allowed/,
  },
  {
    name: 'CONNECT (Node closed the socket unanswered)',
    request: () => raw('CONNECT', '127.0.0.1:22'),
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    message: /^CONNECT is not allowed/,
    headers: { allow: 'GET, HEAD' },
  },
  // Known to Node, refused by the API.
  {
    name: 'QUERY on a v2 path',
    request: () => raw('QUERY', LIST, JSON_TYPE, '{}'),
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    message: /^QUERY is not allowed here/,
    headers: { allow: 'GET, HEAD' },
  },
  {
    name: 'QUERY on an unknown path, with a broken body',
    request: () => raw('QUERY', '/rpc/orgs.list', JSON_TYPE, '{"a":'),
    status: 404,
    code: 'NOT_FOUND',
    message: /^no such endpoint: QUERY \/rpc\/orgs\.list$/,
  },
  {
    name: 'a body over 1 MB to an unknown path',
    request: () => raw('POST', '/v2/unknown', JSON_TYPE, `"${'x'.repeat(2 * 1024 * 1024)}"`),
    status: 404,
    code: 'NOT_FOUND',
    message: /^no such endpoint: POST \/v2\/unknown$/,
  },
  // Messages that said the wrong thing.
  {
    name: 'a pageToken over its length limit',
    request: () => raw('GET', `${LIST}?pageToken=${'a'.repeat(2001)}`, AUTH()),
    status: 400,
    code: 'INVALID_ARGUMENT',
    message: /^pageToken is too long: at most 2000 characters$/,
  },
  {
    name: 'a sort over its length limit',
    request: () => raw('GET', `${LIST}?sort=${'latestDeliveryStatus,'.repeat(20)}`, AUTH()),
    status: 400,
    code: 'INVALID_ARGUMENT',
    message: /^sort is too long: at most 200 characters$/,
  },
  {
    name: 'a long unknown path (the message quotes only its start)',
    request: () => raw('GET', `/v2/${'x'.repeat(5000)}`),
    status: 404,
    code: 'NOT_FOUND',
    message: /^no such endpoint: GET \/v2\/x{196}… \(5004 characters\)$/,
  },
  {
    name: 'a long unknown dataset id (the message quotes only its start)',
    request: () => raw('GET', `/v2/ops/health/datasets/${'d'.repeat(2000)}/deliveries`, AUTH()),
    status: 404,
    code: 'NOT_FOUND',
    message: /^no dataset 'd{200}… \(2000 characters\)'/,
  },
  {
    name: 'an RPC body over 1 MiB',
    request: () =>
      raw('POST', '/rpc/orgs.list', { ...JSON_TYPE, Cookie: cookie }, `"${'x'.repeat(1024 * 1024)}"`),
    status: 413,
    code: 'rpc:too-large',
    message: /^the request body is over the limit of 1 MiB$/,
  },
  {
    name: 'valid JSON with a __proto__ key',
    request: () =>
      raw('POST', '/rpc/keys.revoke', { ...JSON_TYPE, Cookie: cookie }, '{"id":"k","__proto__":{"x":1}}'),
    status: 400,
    code: 'rpc:invalid-argument',
    message: /^the request may not contain the key '__proto__'$/,
  },
  {
    name: 'valid JSON with constructor.prototype',
    request: () =>
      raw('POST', '/rpc/keys.revoke', { ...JSON_TYPE, Cookie: cookie }, '{"constructor":{"prototype":{}}}'),
    status: 400,
    code: 'rpc:invalid-argument',
    message: /^the request may not contain the key 'constructor'$/,
  },
  {
    name: 'broken JSON with the cookie',
    request: () => raw('POST', '/rpc/orgs.list', { ...JSON_TYPE, Cookie: cookie }, '{"a":'),
    status: 400,
    code: 'rpc:invalid-argument',
    message: /^the request body is not valid JSON: /,
  },
  {
    name: 'broken JSON without the cookie',
    request: () => raw('POST', '/rpc/orgs.list', JSON_TYPE, '{"a":'),
    status: 401,
    code: 'rpc:unauthenticated',
    message: /^not signed in/,
  },
  {
    name: 'a body over 1 MB without the cookie',
    request: () => raw('POST', '/rpc/orgs.list', JSON_TYPE, `"${'x'.repeat(1024 * 1024)}"`),
    status: 401,
    code: 'rpc:unauthenticated',
    message: /^not signed in/,
  },
  {
    name: 'a write call with a forged session cookie',
    request: () =>
      raw(
        'POST',
        '/rpc/keys.create',
        { ...JSON_TYPE, Cookie: `${sessionCookie(server.port)}=${'A'.repeat(43)}` },
        '{"orgId":"acme","name":"forged"}',
      ),
    status: 401,
    code: 'rpc:unauthenticated',
    message: /^not signed in/,
  },
  {
    name: 'a write call with an unknown field',
    request: () =>
      raw(
        'POST',
        '/rpc/keys.create',
        { ...JSON_TYPE, Cookie: cookie },
        '{"orgId":"acme","name":"x","admin":true}',
      ),
    status: 400,
    code: 'rpc:invalid-argument',
    message: /unknown field 'admin'/,
  },
  // The event stream (SSE).
  {
    name: 'the event stream without the cookie',
    request: () => raw('GET', '/rpc/events'),
    status: 401,
    code: 'rpc:unauthenticated',
    message: /^not signed in/,
  },
  {
    name: 'the event stream with a forged cookie and a Last-Event-ID',
    request: () =>
      raw('GET', '/rpc/events', {
        Cookie: `${sessionCookie(server.port)}=forged`,
        'Last-Event-ID': 'x'.repeat(1000),
      }),
    status: 401,
    code: 'rpc:unauthenticated',
    message: /^not signed in/,
  },
  {
    name: 'the event stream from another origin, with the cookie',
    request: () => raw('GET', '/rpc/events', { Cookie: cookie, Origin: 'https://evil.example' }),
    status: 403,
    code: 'FORBIDDEN',
    message: /origin 'https:\/\/evil\.example' are refused/,
  },
  {
    name: 'the event stream under a foreign Host (DNS rebinding), with the cookie',
    request: () => raw('GET', '/rpc/events', { Cookie: cookie, Host: 'evil.example' }),
    status: 403,
    code: 'FORBIDDEN',
    message: /^Host 'evil\.example' is not served/,
  },
  {
    name: 'POST to the event stream',
    request: () => raw('POST', '/rpc/events', { ...JSON_TYPE, Cookie: cookie }, '{}'),
    status: 404,
    code: 'rpc:not-found',
    message: /no such call 'events'/,
  },
];

describe.each(ROWS)('$name', (row) => {
  it(`→ ${row.status} ${row.code}, nothing stored changed`, async () => {
    const before = stored();
    const answer = await send(row.request());
    expect(stored()).toBe(before);
    expect(answer.status).toBe(row.status);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.headers).toMatchObject(row.headers ?? {});
    const body = JSON.parse(answer.body) as unknown;
    if (row.code.startsWith('rpc:')) {
      expect(body).toEqual({
        error: { code: row.code.slice(4), message: expect.stringMatching(row.message) },
      });
    } else {
      expect(Value.Check(ErrorBody, body)).toBe(true);
      expect(body).toMatchObject({ status: row.status, code: row.code });
      expect((body as ErrorBody).message).toMatch(row.message);
    }
  });
});

it('the cookie of these rows is a real session', async () => {
  const answer = await send(raw('POST', '/rpc/orgs.list', { ...JSON_TYPE, Cookie: cookie }, 'null'));
  expect(answer.status).toBe(200);
});

it("HEAD of the event stream with the cookie answers at once: the stream's headers, no body", async () => {
  const answer = await send(raw('HEAD', '/rpc/events', { Cookie: cookie }));
  expect(answer.status).toBe(200);
  expect(answer.headers['content-type']).toMatch(/^text\/event-stream/);
  expect(answer.body).toBe('');
});
