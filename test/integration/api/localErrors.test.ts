/**
 * The /local/v1 endpoints keep the v2 rules (docs/api.md#errors, docs/api.md#local-v1): the error table with the parameter
 * named, keys, org scoping (another org's dataset is a plain 404), the Host/Origin guard, 405 with
 * Allow, the rate limit, no 500 for any input, and their place in the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Value } from 'typebox/value';
import { LOCAL_PATHS } from '../../../electron/api/localRoutes';
import { createApiKey, revokeApiKey } from '../../../electron/store/tables/apiKeys';
import { MAX_CAUSE_ID_LENGTH } from '../../../shared/causes';
import { ErrorBody } from '../../../shared/schemas';
import { type DatasetSpec, type HttpAnswer, type LocalFixture, localFixture } from '../../helpers/localApi';

const FAILED: DatasetSpec = {
  id: 'a1',
  name: 'Alpha Prices',
  product: 'Equity Prices',
  supplier: { id: 'sup-1', name: 'Bluefin Exchange Feeds' },
  legacyId: 'v1-alpha',
  status: 'FAILED',
  deliveryId: 'a1-d1',
  deadline: '2026-11-21T01:00:00.000Z',
  deliveredAt: '2026-11-21T01:10:00.000Z',
  failure: { stage: 'ingest', shortCode: 'E_AUTH_FAILED', message: 'credentials expired' },
};
const OTHER: DatasetSpec = { ...FAILED, id: 'g1', legacyId: 'v1-globex', deliveryId: 'g1-d1' };

let fixture: LocalFixture;
beforeAll(async () => {
  fixture = await localFixture();
  await fixture.sync('acme', FAILED);
  await fixture.sync('globex', OTHER);
});
afterAll(() => fixture.close());

const CAUSES = '/local/v1/causes';
const ACKS = '/local/v1/acknowledgements';
const TIMELINE = '/local/v1/datasets/a1/timeline';
const UPCOMING = '/local/v1/upcoming';
const PATHS = [CAUSES, ACKS, TIMELINE, UPCOMING];

function expectError(
  response: HttpAnswer,
  status: number,
  code: string,
  field?: string,
): { message: string } {
  expect(response.status, response.body).toBe(status);
  const body = response.json() as { status: number; code: string; field?: string; message: string };
  expect(Value.Check(ErrorBody, body)).toBe(true);
  expect(body).toMatchObject({ status, code });
  expect(body.field).toBe(field);
  expect(body.message.length).toBeGreaterThan(10);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers.etag).toBeUndefined();
  return body;
}

const STAGES_TEXT = 'ingest, normalize, process, dispatch';
const long = 'x'.repeat(MAX_CAUSE_ID_LENGTH + 1);

/** [url, field, what the message must say] */
const INVALID: [string, string, RegExp][] = [
  [
    `${CAUSES}?cause=nonsense`,
    'cause',
    /cause 'nonsense' is not STAGE:SHORTCODE \(stages: ingest, normalize, process, dispatch\), missing:SUPPLIER or unknown/,
  ],
  [
    `${CAUSES}?cause=bogus:E_X`,
    'cause',
    new RegExp(`unknown stage 'bogus' \\(allowed: ${STAGES_TEXT}, missing\\)`),
  ],
  [`${CAUSES}?cause=:E_X`, 'cause', /unknown stage '' \(allowed/],
  [
    `${CAUSES}?cause=${long}`,
    'cause',
    new RegExp(`cause is too long: at most ${MAX_CAUSE_ID_LENGTH} characters`),
  ],
  [`${CAUSES}?cause=ingest:${long}`, 'cause', /too long/],
  [`${CAUSES}?cause=`, 'cause', /STAGE:SHORTCODE \(stages: ingest, normalize, process, dispatch/],
  [`${CAUSES}?cause=unknown&cause=ingest:E_X`, 'cause', /given once/],
  [
    `${CAUSES}?includeDatasets=yes`,
    'includeDatasets',
    /includeDatasets must be given once: true, false, 1 or 0/,
  ],
  [`${CAUSES}?includeDatasets=`, 'includeDatasets', /true, false, 1 or 0/],
  [`${CAUSES}?includeDatasets=true&includeDatasets=false`, 'includeDatasets', /given once/],
  [
    `${ACKS}?includeEnded=maybe`,
    'includeEnded',
    /includeEnded must be given once: true, false, 1 or 0 \(default false\)/,
  ],
  [`${ACKS}?includeEnded=2`, 'includeEnded', /true, false, 1 or 0/],
  [`${ACKS}?cause=nonsense`, 'cause', /is not STAGE:SHORTCODE/],
  [`${ACKS}?cause=bogus:E_X`, 'cause', /unknown stage 'bogus'/],
  [`${ACKS}?cause=${long}`, 'cause', /too long/],
  [`${ACKS}?datasetId=`, 'datasetId', /datasetId must be given once/],
  [`${ACKS}?datasetId=${'d'.repeat(2049)}`, 'datasetId', /datasetId is too long: at most 2048 characters/],
  [`${ACKS}?datasetId=a&datasetId=b`, 'datasetId', /given once/],
  [
    `${TIMELINE}?limit=0`,
    'limit',
    /limit '0': limit must be given once: an integer from 1 to 500 \(default 100\)/,
  ],
  [`${TIMELINE}?limit=501`, 'limit', /from 1 to 500/],
  [`${TIMELINE}?limit=99999999999999999999999`, 'limit', /from 1 to 500/],
  [`${TIMELINE}?limit=1.5`, 'limit', /an integer from 1 to 500/],
  [`${TIMELINE}?limit=-1`, 'limit', /an integer from 1 to 500/],
  [`${TIMELINE}?limit=ten`, 'limit', /an integer from 1 to 500/],
  [`${TIMELINE}?limit=`, 'limit', /an integer from 1 to 500/],
  [`${TIMELINE}?limit=%2010`, 'limit', /an integer from 1 to 500/],
  [`${TIMELINE}?limit=1e2`, 'limit', /an integer from 1 to 500/],
  [`${TIMELINE}?limit=1&limit=2`, 'limit', /given once/],
];

describe('400: bad parameters name the parameter and what is allowed', () => {
  const rows = INVALID.map(([url, field, message]) => {
    const label = url.length > 90 ? `${url.slice(0, 90)}… (${url.length} characters)` : url;
    return [label, field, url, message] as const;
  });
  it.each(rows)('%s → 400 naming %s', async (_label, field, url, message) => {
    const body = expectError(await fixture.get(url), 400, 'INVALID_ARGUMENT', field);
    expect(body.message).toMatch(message);
  });

  it('a parameter is checked before the dataset is looked up', async () => {
    expectError(
      await fixture.get('/local/v1/datasets/nope/timeline?limit=0'),
      400,
      'INVALID_ARGUMENT',
      'limit',
    );
  });
});

describe('404: unknown datasets and paths; another org’s dataset is the same 404', () => {
  it('an unknown dataset and another org’s answer alike', async () => {
    const missing = expectError(await fixture.get('/local/v1/datasets/g2/timeline'), 404, 'NOT_FOUND');
    const foreign = expectError(await fixture.get('/local/v1/datasets/g1/timeline'), 404, 'NOT_FOUND');
    expect(missing.message).toBe("no dataset 'g2' (by datasetId or legacyDatasetId)");
    expect(foreign.message).toBe("no dataset 'g1' (by datasetId or legacyDatasetId)");
    expectError(await fixture.get('/local/v1/datasets//timeline'), 404, 'NOT_FOUND');
    // By legacyDatasetId too, and with If-None-Match: never a 304.
    expectError(await fixture.get('/local/v1/datasets/v1-globex/timeline'), 404, 'NOT_FOUND');
    expectError(
      await fixture.get('/local/v1/datasets/g1/timeline', { 'if-none-match': '*' }),
      404,
      'NOT_FOUND',
    );
    // The owner sees it.
    const own = await fixture.get('/local/v1/datasets/g1/timeline', {
      authorization: `Bearer ${fixture.otherKey}`,
    });
    expect(own.status).toBe(200);
    expect((own.json() as { datasetId: string }).datasetId).toBe('g1');
  });

  it.each([
    '/local/v1/cause',
    '/local/v1/causes/ingest:E_X',
    '/local/v1/datasets/a1/timeline/extra',
    '/local/v2/causes',
    '/local/v1/causes/',
  ])('%s → 404', async (url) => {
    const body = expectError(await fixture.get(url), 404, 'NOT_FOUND');
    expect(body.message).toMatch(/^no such endpoint: GET /);
  });
});

describe('hostile paths', () => {
  it.each([
    ['broken percent-encoding', '/local/v1/datasets/%E0%A4%A/timeline', 400],
    ['a 2,000-character id', `/local/v1/datasets/${'d'.repeat(2000)}/timeline`, 404],
    // Over the router's 2,048-character segment: refused before routing, the path cut in the message.
    ['an id over the router limit', `/local/v1/datasets/${'d'.repeat(3000)}/timeline`, 400],
    ['a NUL in the id', '/local/v1/datasets/a1%00/timeline', 404],
    ['a quote in the id', "/local/v1/datasets/a1'%20OR%201=1/timeline", 404],
  ] as const)('%s → %s in the error shape', async (_name, url, status) => {
    const response = await fixture.get(url);
    expectError(response, status, status === 400 ? 'INVALID_ARGUMENT' : 'NOT_FOUND');
    expect(response.body.length).toBeLessThan(1000);
  });
});

describe('401: keys', () => {
  const cases: [string, Record<string, string>][] = [
    ['missing', { authorization: '' }],
    ['not bearer', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['malformed', { authorization: 'Bearer not-a-key' }],
    ['unknown', { authorization: `Bearer dhk_${'A'.repeat(43)}` }],
  ];
  it.each(cases)('%s key → 401 with WWW-Authenticate on every local path', async (_name, headers) => {
    for (const path of PATHS) {
      const response = await fixture.get(path, headers);
      expectError(response, 401, 'UNAUTHENTICATED');
      expect(response.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('a revoked key stops working at once', async () => {
    const created = createApiKey(fixture.store, 'acme', 'to revoke', fixture.clock.now);
    const auth = { authorization: `Bearer ${created.key}` };
    for (const path of PATHS) expect((await fixture.get(path, auth)).status).toBe(200);
    revokeApiKey(fixture.store, created.id, fixture.clock.now);
    for (const path of PATHS) {
      const response = await fixture.get(path, auth);
      expectError(response, 401, 'UNAUTHENTICATED');
      expect(response.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('authentication comes before the parameters and the lookup', async () => {
    for (const url of [`${CAUSES}?cause=nonsense`, '/local/v1/datasets/g1/timeline'])
      expectError(await fixture.get(url, { authorization: '' }), 401, 'UNAUTHENTICATED');
  });
});

describe('403: Host and Origin', () => {
  it.each(['evil.example', '127.0.0.1', 'localhost:1'])('Host %s is refused', async (host) => {
    for (const path of PATHS) expectError(await fixture.get(path, { host }), 403, 'FORBIDDEN');
  });
  it('a foreign Origin is refused; the own one is served without CORS headers', async () => {
    for (const path of PATHS) {
      expectError(await fixture.get(path, { origin: 'https://evil.example' }), 403, 'FORBIDDEN');
      const own = await fixture.get(path, { origin: `http://127.0.0.1:${fixture.server.port}` });
      expect(own.status).toBe(200);
      expect(Object.keys(own.headers).some((h) => h.startsWith('access-control-'))).toBe(false);
    }
  });
});

describe('405: read-only', () => {
  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])('%s → 405 with Allow: GET, HEAD', async (method) => {
    for (const path of [...PATHS, '/local/v1/datasets/g1/timeline', `${CAUSES}?cause=nonsense`]) {
      const response = await fixture.request(method, path, { 'content-type': 'application/json' });
      expectError(response, 405, 'METHOD_NOT_ALLOWED');
      expect(response.headers.allow).toBe('GET, HEAD');
    }
  });
});

describe('429', () => {
  it('the local endpoints share the key’s rate limit with v2', async () => {
    const limited = await localFixture({ rateLimit: { perSecond: 5, burst: 10 } });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 10; i++)
        codes.push((await limited.get(i % 2 ? '/v2/ops/health/datasets/deliveries' : PATHS[i % 3]!)).status);
      expect(codes.filter((code) => code !== 404)).toEqual(codes.filter((code) => code === 200));
      for (const path of PATHS) {
        const response = await limited.get(path);
        expectError(response, 429, 'RATE_LIMITED');
        expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      expect((await limited.get(CAUSES, { authorization: `Bearer ${limited.otherKey}` })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('no input produces a 500', () => {
  const text = fc.string({ unit: 'binary', maxLength: 400 });
  const value = fc.oneof(
    text,
    fc.constantFrom('true', 'FALSE', '1', '0', '', 'unknown', 'missing:', 'ingest:', '500', '501', '-0'),
    fc.integer({ min: -1e6, max: 1e6 }).map(String),
  );
  const query = fc.array(
    fc.tuple(fc.constantFrom('cause', 'includeDatasets', 'includeEnded', 'datasetId', 'limit', 'x'), value),
    { maxLength: 4 },
  );
  const path = fc.oneof(
    fc.constant(CAUSES),
    fc.constant(ACKS),
    fc
      .oneof(text, fc.constantFrom('a1', 'g1', 'v1-alpha'))
      .map((id) => `/local/v1/datasets/${encodeURIComponent(id)}/timeline`),
  );

  it('any parameters and dataset ids answer 200, 400 or 404 in the error shape', async () => {
    await fc.assert(
      fc.asyncProperty(path, query, async (base, pairs) => {
        const search = pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
        const response = await fixture.get(search ? `${base}?${search}` : base);
        expect([200, 400, 404]).toContain(response.status);
        if (response.status !== 200) expect(Value.Check(ErrorBody, response.json())).toBe(true);
      }),
      { numRuns: 300, seed: 13 },
    );
  });
});

describe('OpenAPI', () => {
  it('lists every local endpoint with their parameters and response schemas', async () => {
    const response = await fixture.get('/v2/openapi.json', { authorization: '' });
    expect(response.status).toBe(200);
    type Operation = {
      summary: string;
      description: string;
      parameters: { name: string; in: string; required?: boolean; schema: Record<string, unknown> }[];
      responses: Record<
        string,
        { content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }
      >;
    };
    const doc = response.json() as { paths: Record<string, Record<string, Operation>> };
    const local = Object.keys(doc.paths).filter((path) => path.startsWith('/local/'));
    // Every local route, each as OpenAPI spells its path parameters.
    expect(local.sort()).toEqual(
      Object.values(LOCAL_PATHS)
        .map((path) => path.replace(/:([A-Za-z]+)/g, '{$1}'))
        .sort(),
    );
    expect(local).toEqual(expect.arrayContaining(['/local/v1/causes', '/local/v1/upcoming']));
    const params = (path: string) =>
      doc.paths[path]!.get!.parameters.map((p) => `${p.in}:${p.name}${p.required ? '!' : ''}`).sort();
    expect(params('/local/v1/causes')).toEqual(['query:cause', 'query:includeDatasets']);
    expect(params('/local/v1/acknowledgements')).toEqual([
      'query:cause',
      'query:datasetId',
      'query:includeEnded',
    ]);
    expect(params('/local/v1/datasets/{datasetId}/timeline')).toEqual(['path:datasetId!', 'query:limit']);
    for (const path of local) {
      const operation = doc.paths[path]!.get!;
      expect(Object.keys(doc.paths[path]!)).toEqual(['get']);
      expect(operation.summary.length).toBeGreaterThan(10);
      expect(Object.keys(operation.responses)).toEqual(
        expect.arrayContaining(['200', '400', '401', '403', '404', '429']),
      );
      expect(operation.responses['200']!.content!['application/json']!.schema.properties).toBeDefined();
    }
    const causes = doc.paths['/local/v1/causes']!.get!;
    expect(Object.keys(causes.responses['200']!.content!['application/json']!.schema.properties!)).toEqual([
      'causes',
      'syncedAt',
    ]);
    const cause = causes.parameters.find((p) => p.name === 'cause')!;
    expect(cause.schema).toMatchObject({ maxLength: MAX_CAUSE_ID_LENGTH });
    expect(JSON.stringify(cause)).toMatch(/STAGE:SHORTCODE/);
    // The v2 endpoints are still there.
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/v2/'))).toHaveLength(3);
  });
});
