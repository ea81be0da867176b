/** Every row of the error table (docs/api.md#errors), auth, scoping and the Host/Origin guards. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Value } from 'typebox/value';
import { revokeApiKey, createApiKey } from '../../../electron/store/tables/apiKeys';
import { ErrorBody } from '../../../shared/schemas';
import { type ApiFixture, apiFixture, HOST, NOW, PORT } from '../../helpers/api';

let fixture: ApiFixture;
beforeAll(async () => {
  fixture = await apiFixture();
});
afterAll(() => fixture.close());

const LIST = '/v2/ops/health/datasets/deliveries';
const ONE = '/v2/ops/health/datasets/ds-0001/deliveries';
// The fixture's first dataset (ds-0000.X) has a FAILED delivery with stored tasks.
const TASKS = '/v2/ops/health/deliveries/ds-0000.X-dlv-0/tasks';

type Row = [string, number, string, string | undefined];

const INVALID: Row[] = [
  [`${LIST}?filter=datasetName.gt.x`, 400, 'INVALID_ARGUMENT', 'filter'],
  [`${LIST}?filter=nope.eq.x`, 400, 'INVALID_ARGUMENT', 'filter'],
  [`${LIST}?filter=datasetName`, 400, 'INVALID_ARGUMENT', 'filter'],
  [`${LIST}?filter=datasetName.EQ.x`, 400, 'INVALID_ARGUMENT', 'filter'],
  [`${LIST}?filter=deliveryStatus.eq.failed`, 400, 'INVALID_ARGUMENT', 'filter'],
  [`${LIST}?filter=deliveryStatus.in.(FAILED,LATE)`, 400, 'INVALID_ARGUMENT', 'filter'],
  [`${LIST}?filter=datasetId.in.()`, 400, 'INVALID_ARGUMENT', 'filter'],
  [`${LIST}?filter=datasetId.in.("a)`, 400, 'INVALID_ARGUMENT', 'filter'],
  [`${LIST}?filter=legacyDatasetId.like.x*`, 400, 'INVALID_ARGUMENT', 'filter'],
  [`${LIST}?filter=datasetId.eq.x&filter=deliveryId.ilike.x`, 400, 'INVALID_ARGUMENT', 'filter'],
  [`${LIST}?sort=datasetName`, 400, 'INVALID_ARGUMENT', 'sort'],
  [`${LIST}?sort=latestDeliveryStatus.ASC`, 400, 'INVALID_ARGUMENT', 'sort'],
  [`${LIST}?sort=latestDeliveryStatus,latestDeliveryStatus.desc`, 400, 'INVALID_ARGUMENT', 'sort'],
  [`${LIST}?sort=latestDeliveryStatus&sort=latestDeliveryTimestamp`, 400, 'INVALID_ARGUMENT', 'sort'],
  [`${LIST}?pageToken=garbage`, 400, 'INVALID_ARGUMENT', 'pageToken'],
  [`${LIST}?pageSize=-1`, 400, 'INVALID_ARGUMENT', 'pageSize'],
  [`${LIST}?pageSize=1.5`, 400, 'INVALID_ARGUMENT', 'pageSize'],
  [`${LIST}?pageSize=ten`, 400, 'INVALID_ARGUMENT', 'pageSize'],
  [`${LIST}?pageSize=`, 400, 'INVALID_ARGUMENT', 'pageSize'],
  [`${LIST}?pageSize=0x10`, 400, 'INVALID_ARGUMENT', 'pageSize'],
  [`${LIST}?pageSize=1e3`, 400, 'INVALID_ARGUMENT', 'pageSize'],
  [`${LIST}?pageSize=%205`, 400, 'INVALID_ARGUMENT', 'pageSize'],
  [`${LIST}?pageSize=%2B5`, 400, 'INVALID_ARGUMENT', 'pageSize'],
  [
    `${LIST}?${Array.from({ length: 51 }, () => 'filter=datasetId.eq.x').join('&')}`,
    400,
    'INVALID_ARGUMENT',
    'filter',
  ],
  [`${LIST}?filter=datasetName.like.${'*a'.repeat(1001)}`, 400, 'INVALID_ARGUMENT', 'filter'],
  [`${LIST}?sort=${'latestDeliveryStatus,'.repeat(20)}`, 400, 'INVALID_ARGUMENT', 'sort'],
  [`${LIST}?pageSize=1&pageSize=2`, 400, 'INVALID_ARGUMENT', 'pageSize'],
  [`${LIST}?pageToken=a&pageToken=b`, 400, 'INVALID_ARGUMENT', 'pageToken'],
  [`${LIST}?latestDeliveriesCount=-3`, 400, 'INVALID_ARGUMENT', 'latestDeliveriesCount'],
  [`${LIST}?latestDeliveriesCount=2.5`, 400, 'INVALID_ARGUMENT', 'latestDeliveriesCount'],
  [`${ONE}?latestDeliveriesCount=x`, 400, 'INVALID_ARGUMENT', 'latestDeliveriesCount'],
  [`${ONE}?includeRunDetails=yes`, 400, 'INVALID_ARGUMENT', 'includeRunDetails'],
  [`${TASKS}?includeRunDetails=2`, 400, 'INVALID_ARGUMENT', 'includeRunDetails'],
  ['/v2/ops/health/datasets/nope/deliveries', 404, 'NOT_FOUND', undefined],
  ['/v2/ops/health/datasets/other-0001/deliveries', 404, 'NOT_FOUND', undefined],
  ['/v2/ops/health/deliveries/nope/tasks', 404, 'NOT_FOUND', undefined],
  ['/v2/ops/health/deliveries/other-0000-dlv-0/tasks', 404, 'NOT_FOUND', undefined],
  ['/v2/ops/health/deliveries/ds-0001-dlv-0/tasks', 404, 'NOT_FOUND', undefined],
  ['/v2/unknown', 404, 'NOT_FOUND', undefined],
  ['/', 404, 'NOT_FOUND', undefined],
];

function expectError(
  response: { statusCode: number; json(): unknown; headers: Record<string, unknown> },
  row: Row,
): void {
  const [, status, code, field] = row;
  expect(response.statusCode).toBe(status);
  const body = response.json() as { status: number; code: string; field?: string; message: string };
  expect(Value.Check(ErrorBody, body)).toBe(true);
  expect(body).toMatchObject({ status, code });
  expect(body.field).toBe(field);
  expect(body.message.length).toBeGreaterThan(10);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers.etag).toBeUndefined();
}

describe('400 and 404', () => {
  it.each(INVALID)('%s → %i %s', async (...row) => {
    expectError(await fixture.get(row[0]), row);
  });

  it('messages say what was wrong and what is allowed', async () => {
    const body = (await fixture.get(`${LIST}?filter=datasetName.gt.x`)).json() as { message: string };
    expect(body.message).toBe(
      "filter 'datasetName.gt.x': operator 'gt' is not allowed for datasetName (allowed: eq, neq, in, like, ilike)",
    );
    const tasks = (await fixture.get('/v2/ops/health/deliveries/ds-0001-dlv-0/tasks')).json() as {
      message: string;
    };
    expect(tasks.message).toMatch(/never synced/);
  });
});

describe('401: keys', () => {
  const cases: [string, Record<string, string>][] = [
    ['missing', { authorization: '' }],
    ['not bearer', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['malformed', { authorization: 'Bearer not-a-key' }],
    ['unknown', { authorization: `Bearer dhk_${'A'.repeat(43)}` }],
  ];
  it.each(cases)('%s key → 401 with WWW-Authenticate', async (_name, headers) => {
    const response = await fixture.get(LIST, headers);
    expectError(response, [LIST, 401, 'UNAUTHENTICATED', undefined]);
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });

  it('a revoked key stops working at once', async () => {
    const created = createApiKey(fixture.store, 'acme', 'to revoke', NOW);
    const auth = { authorization: `Bearer ${created.key}` };
    expect((await fixture.get(LIST, auth)).statusCode).toBe(200);
    revokeApiKey(fixture.store, created.id, NOW);
    expect((await fixture.get(LIST, auth)).statusCode).toBe(401);
  });

  it('keys are stored only as hashes', () => {
    const stored = fixture.store.column<string>('SELECT hash FROM api_keys');
    expect(stored).not.toContain(fixture.key);
    expect(JSON.stringify(fixture.store.all('SELECT * FROM api_keys'))).not.toContain(fixture.key.slice(4));
  });
});

describe('org scoping', () => {
  it("each key sees only its org's datasets; another org's dataset or delivery is a 404", async () => {
    const other = { authorization: `Bearer ${fixture.otherKey}` };
    const list = (await fixture.get(`${LIST}?pageSize=1000`, other)).json() as {
      items: { datasetId: string }[];
    };
    expect(list.items.map((r) => r.datasetId).sort()).toEqual(
      fixture.otherRecords.map((r) => r.datasetId).sort(),
    );
    expect((await fixture.get(ONE, other)).statusCode).toBe(404);
    expect((await fixture.get(TASKS)).statusCode).toBe(200);
    expect((await fixture.get(TASKS, other)).statusCode).toBe(404);
    expect((await fixture.get('/v2/ops/health/datasets/other-0001/deliveries', other)).statusCode).toBe(200);
  });

  it('a page token of one org is refused for another', async () => {
    const page = (await fixture.get(`${LIST}?pageSize=2`)).json() as { nextPageToken: string };
    const response = await fixture.get(`${LIST}?pageSize=2&pageToken=${page.nextPageToken}`, {
      authorization: `Bearer ${fixture.otherKey}`,
    });
    expectError(response, ['', 400, 'INVALID_ARGUMENT', 'pageToken']);
  });
});

describe('page tokens are bound and tamper-proof', () => {
  it('refuses a token replayed with other filters or sort, or altered', async () => {
    const page = (await fixture.get(`${LIST}?pageSize=2&filter=datasetId.like.ds-*`)).json() as {
      nextPageToken: string;
    };
    const token = page.nextPageToken;
    expect(token).not.toBe('');
    expect(
      (await fixture.get(`${LIST}?pageSize=2&filter=datasetId.like.ds-*&pageToken=${token}`)).statusCode,
    ).toBe(200);
    for (const query of [
      `pageToken=${token}`,
      `filter=datasetId.like.ds-0*&pageToken=${token}`,
      `filter=datasetId.like.ds-*&sort=latestDeliveryStatus&pageToken=${token}`,
      `filter=datasetId.like.ds-*&pageToken=${token.slice(0, -2)}`,
      `filter=datasetId.like.ds-*&pageToken=x${token}`,
    ]) {
      expectError(await fixture.get(`${LIST}?pageSize=2&${query}`), [
        '',
        400,
        'INVALID_ARGUMENT',
        'pageToken',
      ]);
    }
  });

  it('a token stays valid when the filters are given in another order', async () => {
    const a = 'filter=datasetId.like.ds-*&filter=deliveryStatus.neq.HEALTHY';
    const b = 'filter=deliveryStatus.neq.HEALTHY&filter=datasetId.like.ds-*';
    const page = (await fixture.get(`${LIST}?pageSize=2&${a}`)).json() as { nextPageToken: string };
    expect((await fixture.get(`${LIST}?pageSize=2&${b}&pageToken=${page.nextPageToken}`)).statusCode).toBe(
      200,
    );
  });
});

describe('403: Host and Origin', () => {
  const hosts = [
    'evil.example',
    `evil.example:${PORT}`,
    '127.0.0.1',
    `127.0.0.1:${PORT + 1}`,
    `192.168.1.2:${PORT}`,
  ];
  it.each(hosts)('Host %s is refused', async (host) => {
    expectError(await fixture.get(LIST, { host }), ['', 403, 'FORBIDDEN', undefined]);
  });
  it.each([`localhost:${PORT}`, `[::1]:${PORT}`, HOST])('Host %s is served', async (host) => {
    expect((await fixture.get(LIST, { host })).statusCode).toBe(200);
  });
  it.each(['https://evil.example', 'null', `http://localhost:${PORT + 1}`])(
    'Origin %s is refused',
    async (origin) => {
      expectError(await fixture.get(LIST, { origin }), ['', 403, 'FORBIDDEN', undefined]);
    },
  );
  it('the own UI origin is served, without CORS headers', async () => {
    const response = await fixture.get(LIST, { origin: `http://127.0.0.1:${PORT}` });
    expect(response.statusCode).toBe(200);
    expect(Object.keys(response.headers).some((h) => h.startsWith('access-control-'))).toBe(false);
  });
  it('the guard also protects the OpenAPI document', async () => {
    const response = await fixture.app.inject({ url: '/v2/openapi.json', headers: { host: 'evil.example' } });
    expect(response.statusCode).toBe(403);
  });
});

describe('405', () => {
  it.each([
    'POST',
    'PUT',
    'PATCH',
    'DELETE',
    'OPTIONS',
    'TRACE',
    'PROPFIND',
    'COPY',
    'LOCK',
    'SEARCH',
  ] as const)('%s on a v2 path → 405 with Allow', async (method) => {
    for (const url of [LIST, ONE, TASKS]) {
      const response = await fixture.app.inject({
        method,
        url,
        headers: { host: HOST, authorization: `Bearer ${fixture.key}` },
      });
      expectError(response, ['', 405, 'METHOD_NOT_ALLOWED', undefined]);
      expect(response.headers.allow).toBe('GET, HEAD');
    }
  });

  // The method is refused before the body is read: no body, a broken one or one over the size limit.
  const bodies: [string, string | undefined][] = [
    ['no body', undefined],
    ['invalid JSON', '{"a":'],
    ['a body over the limit', `"${'x'.repeat(2 * 1024 * 1024)}"`],
  ];
  const methods = ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
  it.each(methods.flatMap((method) => bodies.map(([name, payload]) => [method, name, payload] as const)))(
    '%s with Content-Type: application/json and %s → 405, not 400/413',
    async (method, _name, payload) => {
      for (const url of [LIST, ONE, TASKS]) {
        const response = await fixture.app.inject({
          method,
          url,
          headers: { host: HOST, authorization: `Bearer ${fixture.key}`, 'content-type': 'application/json' },
          payload,
        });
        expectError(response, ['', 405, 'METHOD_NOT_ALLOWED', undefined]);
        expect(response.headers.allow).toBe('GET, HEAD');
      }
    },
  );

  it('the Host/Origin guard still comes first', async () => {
    const response = await fixture.app.inject({
      method: 'DELETE',
      url: LIST,
      headers: { host: 'evil.example', 'content-type': 'application/json' },
    });
    expectError(response, ['', 403, 'FORBIDDEN', undefined]);
  });

  it('an unknown path is a 404 whatever its body (the body is never read)', async () => {
    const headers = { host: HOST, 'content-type': 'application/json' };
    for (const payload of ['{}', '{', '{"__proto__":{}}', `"${'x'.repeat(2 * 1024 * 1024)}"`]) {
      const response = await fixture.app.inject({ method: 'POST', url: '/v2/unknown', headers, payload });
      expectError(response, ['', 404, 'NOT_FOUND', undefined]);
      expect((response.json() as { message: string }).message).toBe('no such endpoint: POST /v2/unknown');
    }
  });
});

describe('429', () => {
  it('a key over its rate gets 429 with Retry-After; another key is unaffected', async () => {
    const limited = await apiFixture({ rateLimit: { perSecond: 5, burst: 10 } }, 5);
    try {
      const codes: number[] = [];
      for (let i = 0; i < 12; i++) codes.push((await limited.get(`${LIST}?pageSize=1`)).statusCode);
      expect(codes.slice(0, 10).every((c) => c === 200)).toBe(true);
      const response = await limited.get(`${LIST}?pageSize=1`);
      expectError(response, ['', 429, 'RATE_LIMITED', undefined]);
      expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const other = await limited.get(LIST, { authorization: `Bearer ${limited.otherKey}` });
      expect(other.statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('500', () => {
  it('a bug answers a generic INTERNAL error and logs the details (never the key)', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(line) });
    const broken = await apiFixture({ logger });
    try {
      broken.store.db.run('DROP TABLE delivery_tasks');
      const response = await broken.get(TASKS);
      expectError(response, ['', 500, 'INTERNAL', undefined]);
      expect((response.json() as { message: string }).message).not.toMatch(/delivery_tasks/);
      expect(lines.join('')).toMatch(/no such table: delivery_tasks/);
      expect(lines.join('')).not.toContain(broken.key);
    } finally {
      await broken.close();
    }
  });
});

describe('an error is never a cached version', () => {
  it('a 400 or 404 replayed with If-None-Match still answers the error, never 304', async () => {
    for (const url of [`${LIST}?pageToken=garbage`, '/v2/ops/health/datasets/nope/deliveries']) {
      const first = await fixture.get(url);
      expect(first.headers.etag).toBeUndefined();
      const again = await fixture.get(url, { 'if-none-match': '*' });
      expect(again.statusCode).toBe(first.statusCode);
    }
  });
});
