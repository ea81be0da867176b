/**
 * `GET /local/v1/stats` (docs/architecture.md#reliability): the statistics a person computes by hand from the
 * histories below, the same answer as the engine's service (and its `stats.get` RPC) for every grouping
 * and window, `groupBy`/`days`/`key` checked with the parameter named, and v2's keys, org scoping
 * (another org's dataset is a plain 404) and caching headers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OnCallKnowledge } from '../../../electron/knowledge/service';
import { type ReliabilityStats, STATS_DAYS, STATS_GROUPS } from '../../../shared/reliability';
import { RpcError } from '../../../shared/rpc';
import { ErrorBody } from '../../../shared/schemas';
import { engineDispatch } from '../../helpers/engineClient';
import { dailyDeliveries, syncHistories } from '../../helpers/history';
import { type HttpAnswer, type LocalFixture, localFixture } from '../../helpers/localApi';

/** The window ends at 05:00, the start of NOW's hour. */
const NOW = new Date('2026-11-26T05:30:00.000Z');
const MINUTE = 60_000;
const times = <T>(count: number, entry: T): T[] => Array.from({ length: count }, () => entry);
const KESTREL = { id: 'sup-2', name: 'Kestrel Data' };

let fixture: LocalFixture;
beforeAll(async () => {
  fixture = await localFixture({ now: NOW });
  await syncHistories(
    fixture.store,
    'acme',
    [
      // Daily at 06:00, ten on time (10 minutes early), 16–25 November.
      {
        id: 'steady',
        product: 'Prices',
        cron: '0 6 * * *',
        deliveries: dailyDeliveries(
          '2026-11-25T06:00:00Z',
          times(10, { status: 'HEALTHY', offsetMinutes: -10 }),
        ),
      },
      // Newest first: recovered on the 25th from the failure of the 23rd (2 days), late, missing.
      {
        id: 'shaky',
        product: 'Rates',
        supplier: KESTREL,
        cron: '0 6 * * *',
        deliveries: dailyDeliveries('2026-11-25T06:00:00Z', [
          { status: 'HEALTHY', offsetMinutes: 0 },
          { status: 'FAILED', offsetMinutes: null },
          { status: 'FAILED', offsetMinutes: null },
          { status: 'DELIVERED_LATE', offsetMinutes: 60 },
          { status: 'MISSING', offsetMinutes: null },
          { status: 'HEALTHY', offsetMinutes: -5 },
        ]),
      },
      // Only a delivery in progress: a group without deliveries, last.
      {
        id: 'inflight',
        product: 'Prices',
        cron: '0 6 * * *',
        deliveries: [{ deadline: '2026-11-25T06:00:00.000Z', deliveredAt: null, status: 'IN_PROGRESS' }],
      },
    ],
    NOW,
  );
  await syncHistories(
    fixture.store,
    'globex',
    [
      {
        id: 'theirs',
        cron: '0 6 * * *',
        deliveries: dailyDeliveries('2026-11-25T06:00:00Z', [{ status: 'MISSING', offsetMinutes: null }]),
      },
    ],
    NOW,
  );
});
afterAll(() => fixture.close());

type Body = Omit<ReliabilityStats, 'orgId'> & { syncedAt: string | null };

const body = async (path: string, headers?: Record<string, string>): Promise<Body> => {
  const answer = await fixture.get(path, headers);
  expect(answer.status, answer.body).toBe(200);
  return answer.json() as Body;
};

function expectError(
  response: HttpAnswer,
  status: number,
  code: string,
  field?: string,
): { message: string } {
  expect(response.status, response.body).toBe(status);
  const error = response.json() as { status: number; code: string; field?: string; message: string };
  expect(Value.Check(ErrorBody, error)).toBe(true);
  expect(error).toMatchObject({ status, code });
  expect(error.field).toBe(field);
  expect(response.headers.etag).toBeUndefined();
  return error;
}

describe('GET /local/v1/stats', () => {
  it('per supplier over 30 days by default, worst first, with the figures a person computes', async () => {
    const stats = await body('/local/v1/stats');
    expect(stats).toMatchObject({
      groupBy: 'supplier',
      days: 30,
      from: '2026-10-27T05:00:00.000Z',
      to: '2026-11-26T05:00:00.000Z',
      syncedAt: '2026-11-26T05:30:00.000Z',
    });
    expect(stats.groups.map((g) => [g.key, g.name, g.datasets])).toEqual([
      ['sup-2', 'Kestrel Data', 1],
      ['sup-1', 'Bluefin Exchange Feeds', 2],
    ]);
    expect(stats.groups[0]!.figures).toEqual({
      deliveries: 6,
      onTime: 2,
      late: 1,
      missing: 1,
      failed: 2,
      onTimeRate: 2 / 6,
      lateRate: 1 / 6,
      missingRate: 1 / 6,
      failedRate: 2 / 6,
      // Lateness 0 (early counts as 0), 0, 60 min: nearest-rank median 0, p90 60 min.
      medianLatenessMs: 0,
      p90LatenessMs: 60 * MINUTE,
      recoveries: 1,
      // FAILED 23 Nov 06:00 (not delivered: its deadline) → HEALTHY delivered 25 Nov 06:00.
      medianTimeToRecoverMs: 2 * 86_400_000,
    });
    expect(stats.groups[1]!.figures).toMatchObject({ deliveries: 10, onTime: 10, onTimeRate: 1 });
    // 30 days: five weeks ending at the window's end, the oldest 2 days long.
    expect(stats.groups[1]!.weeks.map((w) => [w.start, w.deliveries])).toEqual([
      ['2026-10-27T05:00:00.000Z', 0],
      ['2026-10-29T05:00:00.000Z', 0],
      ['2026-11-05T05:00:00.000Z', 0],
      ['2026-11-12T05:00:00.000Z', 3],
      ['2026-11-19T05:00:00.000Z', 7],
    ]);
  });

  it('per dataset over 7 days: the one without deliveries last; per data product', async () => {
    const datasets = await body('/local/v1/stats?groupBy=dataset&days=7');
    expect(datasets.groups.map((g) => [g.key, g.figures.deliveries, g.figures.onTimeRate])).toEqual([
      ['shaky', 6, 2 / 6],
      ['steady', 7, 1],
      ['inflight', 0, null],
    ]);
    expect(datasets.groups[0]!.weeks).toHaveLength(1);
    const products = await body('/local/v1/stats?groupBy=dataProduct&days=90');
    expect(products.groups.map((g) => [g.key, g.datasets, g.figures.deliveries])).toEqual([
      ['Rates', 1, 6],
      ['Prices', 2, 10],
    ]);
    expect(products.groups[0]!.weeks).toHaveLength(13);
  });

  it('answers what the engine answers for every grouping and window, and its RPC alike', async () => {
    const knowledge = new OnCallKnowledge({ store: fixture.store, now: () => NOW, sources: () => [] });
    const dataDir = mkdtempSync(join(tmpdir(), 'dh-stats-rpc-'));
    try {
      const { dispatch } = engineDispatch(fixture.store, dataDir, NOW);
      for (const groupBy of STATS_GROUPS)
        for (const days of STATS_DAYS) {
          const expected = await knowledge.stats('acme', groupBy, days);
          const { orgId: _org, ...rest } = expected;
          const { syncedAt: _synced, ...answered } = await body(
            `/local/v1/stats?groupBy=${groupBy}&days=${days}`,
          );
          expect(answered).toEqual(rest);
          expect(await dispatch('stats.get', { orgId: 'acme', groupBy, days })).toEqual(expected);
        }
      expect(
        await dispatch('stats.get', { orgId: 'acme', groupBy: 'dataset', days: 7, key: 'steady' }),
      ).toEqual(await knowledge.stats('acme', 'dataset', 7, 'steady'));
      const unknown = await dispatch('stats.get', { orgId: 'nobody', groupBy: 'supplier', days: 30 }).catch(
        (error: unknown) => error,
      );
      expect(unknown).toBeInstanceOf(RpcError);
      expect((unknown as RpcError).code).toBe('not-found');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("weeks=false leaves every group's weekly trend out and the figures as they are; the RPC alike", async () => {
    const whole = await body('/local/v1/stats?groupBy=dataset&days=90');
    const lean = await body('/local/v1/stats?groupBy=dataset&days=90&weeks=false');
    expect(whole.groups.every((g) => g.weeks.length === 13)).toBe(true);
    expect(lean.groups.every((g) => g.weeks.length === 0)).toBe(true);
    expect(lean.groups.map(({ weeks: _weeks, ...g }) => g)).toEqual(
      whole.groups.map(({ weeks: _weeks, ...g }) => g),
    );
    const knowledge = new OnCallKnowledge({ store: fixture.store, now: () => NOW, sources: () => [] });
    // The held answer keeps its weeks for the next asker.
    expect((await knowledge.stats('acme', 'dataset', 90, null, { weeks: false })).groups[0]!.weeks).toEqual(
      [],
    );
    expect((await knowledge.stats('acme', 'dataset', 90)).groups[0]!.weeks).toHaveLength(13);
    const dataDir = mkdtempSync(join(tmpdir(), 'dh-stats-rpc-'));
    try {
      const { dispatch } = engineDispatch(fixture.store, dataDir, NOW);
      const answer = (await dispatch('stats.get', {
        orgId: 'acme',
        groupBy: 'dataset',
        days: 90,
        weeks: false,
      })) as ReliabilityStats;
      expect(answer.groups.every((g) => g.weeks.length === 0)).toBe(true);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('key= answers that group alone, of the asking org', async () => {
    const one = await body('/local/v1/stats?groupBy=dataset&days=30&key=steady');
    expect(one.groups.map((g) => g.key)).toEqual(['steady']);
    const supplier = await body('/local/v1/stats?key=sup-1');
    expect(supplier.groups.map((g) => [g.key, g.datasets])).toEqual([['sup-1', 2]]);
    const other = await body('/local/v1/stats?groupBy=dataProduct&key=Prices', {
      authorization: `Bearer ${fixture.otherKey}`,
    });
    expect(other.groups.map((g) => [g.key, g.name, g.datasets])).toEqual([['Prices', 'Prices', 1]]);
  });
});

describe('errors', () => {
  it.each([
    [
      'groupBy=supplierId',
      'groupBy',
      /groupBy 'supplierId': groupBy must be given once: dataset, supplier, dataProduct \(default supplier\)/,
    ],
    ['groupBy=Supplier', 'groupBy', /'Supplier'.*dataset, supplier, dataProduct/],
    ['groupBy=', 'groupBy', /groupBy '': .*dataset, supplier, dataProduct/],
    [`groupBy=${'g'.repeat(300)}`, 'groupBy', /\(300 characters\).*dataset, supplier, dataProduct/],
    [
      'groupBy=dataset&groupBy=supplier',
      'groupBy',
      /groupBy must be given once: dataset, supplier, dataProduct/,
    ],
    ['days=14', 'days', /days '14': days must be given once: 7, 30, 90 \(default 30\)/],
    ['days=30.0', 'days', /days '30.0': .*7, 30, 90/],
    ['days=%2030', 'days', /7, 30, 90/],
    ['days=thirty', 'days', /7, 30, 90/],
    ['days=', 'days', /days '': .*7, 30, 90/],
    ['days=7&days=30', 'days', /days must be given once: 7, 30, 90/],
    [`key=${'k'.repeat(1001)}`, 'key', /key is too long: at most 1000 characters/],
    ['key=a&key=b', 'key', /key must be given once/],
    ['weeks=no', 'weeks', /weeks must be given once: true, false, 1 or 0 \(default true\)/],
  ])('%s → 400 naming %s', async (query, field, message) => {
    const error = expectError(await fixture.get(`/local/v1/stats?${query}`), 400, 'INVALID_ARGUMENT', field);
    expect(error.message).toMatch(message);
  });

  it("a key the org has no group for is a 404, another org's dataset the same", async () => {
    const missing = expectError(
      await fixture.get('/local/v1/stats?groupBy=dataset&key=nope'),
      404,
      'NOT_FOUND',
    );
    const foreign = expectError(
      await fixture.get('/local/v1/stats?groupBy=dataset&key=theirs'),
      404,
      'NOT_FOUND',
    );
    expect(missing.message).toBe("no dataset 'nope' among the org's datasets");
    expect(foreign.message).toBe("no dataset 'theirs' among the org's datasets");
    expectError(await fixture.get('/local/v1/stats?groupBy=dataProduct&key=Bonds'), 404, 'NOT_FOUND');
    for (const hostile of ['__proto__', 'constructor', '%00', "steady'%20OR%201=1", '*'])
      expectError(await fixture.get(`/local/v1/stats?groupBy=dataset&key=${hostile}`), 404, 'NOT_FOUND');
    // The owner sees it.
    const own = await body('/local/v1/stats?groupBy=dataset&key=theirs', {
      authorization: `Bearer ${fixture.otherKey}`,
    });
    expect(own.groups.map((g) => [g.key, g.figures.missing])).toEqual([['theirs', 1]]);
  });

  it.each([
    ['missing', { authorization: '' }],
    ['malformed', { authorization: 'Bearer not-a-key' }],
    ['unknown', { authorization: `Bearer dhk_${'A'.repeat(43)}` }],
  ])('%s key → 401, before the parameters are read', async (_name, headers) => {
    for (const path of [
      '/local/v1/stats',
      '/local/v1/stats?groupBy=nonsense',
      '/local/v1/stats?key=theirs&groupBy=dataset',
    ]) {
      const response = await fixture.get(path, headers);
      expectError(response, 401, 'UNAUTHENTICATED');
      expect(response.headers['www-authenticate']).toBe('Bearer');
    }
  });
});

describe('v2 rules', () => {
  it('each org sees its own datasets only', async () => {
    const theirs = await body('/local/v1/stats?groupBy=dataset', {
      authorization: `Bearer ${fixture.otherKey}`,
    });
    expect(theirs.groups.map((g) => g.key)).toEqual(['theirs']);
  });

  it('X-Synced-At, ETag and 304, HEAD without a body, and its place in the OpenAPI document', async () => {
    const first = await fixture.get('/local/v1/stats?groupBy=dataset');
    expect(first.headers['x-synced-at']).toBe('2026-11-26T05:30:00.000Z');
    expect(first.headers.etag).toBeDefined();
    const again = await fixture.get('/local/v1/stats?groupBy=dataset', {
      'if-none-match': String(first.headers.etag),
    });
    expect(again.status).toBe(304);
    // Another grouping is another body.
    const other = await fixture.get('/local/v1/stats?groupBy=supplier');
    expect(other.headers.etag).not.toBe(first.headers.etag);
    const head = await fixture.request('HEAD', '/local/v1/stats');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    const openapi = await fixture.get('/v2/openapi.json', { authorization: '' });
    const paths = (openapi.json() as { paths: Record<string, { get?: { parameters?: { name: string }[] } }> })
      .paths;
    expect(paths['/local/v1/stats']?.get?.parameters?.map((p) => p.name).sort()).toEqual([
      'days',
      'groupBy',
      'key',
      'weeks',
    ]);
  });

  it('the next hour is another window', async () => {
    const before = await body('/local/v1/stats?days=7');
    fixture.clock.now = new Date('2026-11-26T06:10:00.000Z');
    try {
      const after = await body('/local/v1/stats?days=7');
      expect(after.to).toBe('2026-11-26T06:00:00.000Z');
      expect(after.to).not.toBe(before.to);
    } finally {
      fixture.clock.now = NOW;
    }
  });
});
