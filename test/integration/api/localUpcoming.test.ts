/**
 * `GET /local/v1/upcoming` (docs/architecture.md#deadlines): the deadlines of the next hours from each dataset's schedule
 * and zone, soonest first, with the habits and at-risk mark a person computes from the histories below by
 * hand; `hours` checked with the parameter named; v2's keys, scoping and caching.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OnCallKnowledge } from '../../../electron/knowledge/service';
import type { UpcomingDeadlines } from '../../../shared/upcoming';
import { dailyDeliveries, syncHistories } from '../../helpers/history';
import { type LocalFixture, localFixture } from '../../helpers/localApi';

const NOW = new Date('2026-11-26T05:00:00.000Z');
const times = <T>(count: number, entry: T): T[] => Array.from({ length: count }, () => entry);

let fixture: LocalFixture;
beforeAll(async () => {
  fixture = await localFixture({ now: NOW });
  await syncHistories(
    fixture.store,
    'acme',
    [
      // 06:30 London (GMT in November): 06:30Z; 20 on time, 10 minutes early.
      {
        id: 'steady',
        cron: '30 6 * * *',
        timezone: 'Europe/London',
        deliveries: dailyDeliveries(
          '2026-11-25T06:30:00Z',
          times(20, { status: 'HEALTHY', offsetMinutes: -10 }),
        ),
      },
      // 07:00 UTC; 15 of 20 on time: 75% < 80% → at risk.
      {
        id: 'shaky',
        cron: '0 7 * * *',
        supplier: { id: 'sup-2', name: 'Kestrel Data' },
        deliveries: dailyDeliveries('2026-11-25T07:00:00Z', [
          ...times(5, { status: 'DELIVERED_LATE', offsetMinutes: 45 }),
          ...times(15, { status: 'HEALTHY', offsetMinutes: -3 }),
        ]),
      },
      // Every hour at :15; its latest was MISSING → at risk.
      {
        id: 'hourly',
        cron: '15 * * * *',
        deliveries: [
          { deadline: '2026-11-26T04:15:00.000Z', deliveredAt: null, status: 'MISSING' },
          {
            deadline: '2026-11-26T03:15:00.000Z',
            deliveredAt: '2026-11-26T03:10:00.000Z',
            status: 'HEALTHY',
          },
        ],
      },
      // 7 fields (seconds first): 09:00:30 New York = 14:00:30Z, beyond 6 hours.
      { id: 'seconds', cron: '30 0 9 * * * *', timezone: 'America/New_York', deliveries: [] },
      // Unreadable: counted, never listed, never a crash.
      { id: 'broken', cron: '0 99 * * *', deliveries: [] },
    ],
    NOW,
  );
  // Another org's deadlines never show.
  await syncHistories(fixture.store, 'globex', [{ id: 'theirs', cron: '0 6 * * *', deliveries: [] }], NOW);
});
afterAll(() => fixture.close());

const body = async (path: string) => {
  const answer = await fixture.get(path);
  expect(answer.status, answer.body).toBe(200);
  return answer.json() as Omit<UpcomingDeadlines, 'orgId'> & { syncedAt: string | null };
};

describe('GET /local/v1/upcoming', () => {
  it('lists the next 6 hours by default, soonest first, with habits and the at-risk mark', async () => {
    const upcoming = await body('/local/v1/upcoming');
    expect(upcoming).toMatchObject({
      hours: 6,
      from: '2026-11-26T05:00:00.000Z',
      to: '2026-11-26T11:00:00.000Z',
      total: 8,
      truncated: false,
      invalidSchedules: 1,
    });
    // Not 11:15: the window is (from, to].
    expect(upcoming.deadlines.map((d) => `${d.deadline} ${d.datasetId}`)).toEqual([
      '2026-11-26T05:15:00.000Z hourly',
      '2026-11-26T06:15:00.000Z hourly',
      '2026-11-26T06:30:00.000Z steady',
      '2026-11-26T07:00:00.000Z shaky',
      '2026-11-26T07:15:00.000Z hourly',
      '2026-11-26T08:15:00.000Z hourly',
      '2026-11-26T09:15:00.000Z hourly',
      '2026-11-26T10:15:00.000Z hourly',
    ]);
    const steady = upcoming.deadlines.find((d) => d.datasetId === 'steady')!;
    expect(steady).toMatchObject({
      timeZone: 'Europe/London',
      supplierName: 'Bluefin Exchange Feeds',
      status: 'HEALTHY',
      habits: { settled: 20, onTime: 20, onTimeRate: 1, typicalDeliveryMs: -600_000, atRisk: false },
    });
    const shaky = upcoming.deadlines.find((d) => d.datasetId === 'shaky')!;
    expect(shaky.timeZone).toBe('UTC');
    expect(shaky.habits).toMatchObject({ onTime: 15, onTimeRate: 0.75, atRisk: true });
    expect(shaky.habits.riskReason).toBe('15 of its last 20 deliveries were on time (75%)');
    const hourly = upcoming.deadlines.find((d) => d.datasetId === 'hourly')!;
    expect(hourly.habits).toMatchObject({ atRisk: true, riskReason: 'its latest delivery was MISSING' });
    expect(upcoming.syncedAt).toBe('2026-11-26T05:00:00.000Z');
  });

  it('answers what the engine answers, for 1 to 168 hours (7 fields, seconds kept)', async () => {
    const knowledge = new OnCallKnowledge({ store: fixture.store, now: () => NOW, sources: () => [] });
    for (const hours of [1, 24, 168]) {
      const { orgId: _org, ...expected } = await knowledge.upcoming('acme', hours);
      const { syncedAt: _synced, ...answered } = await body(`/local/v1/upcoming?hours=${hours}`);
      expect(answered).toEqual(expected);
    }
    const day = await body('/local/v1/upcoming?hours=24');
    expect(day.deadlines.find((d) => d.datasetId === 'seconds')?.deadline).toBe('2026-11-26T14:00:30.000Z');
    expect(day.deadlines.every((d) => d.datasetId !== 'theirs')).toBe(true);
    expect((await body('/local/v1/upcoming?hours=1')).deadlines.map((d) => d.datasetId)).toEqual(['hourly']);
  });

  it.each([
    ['0', '0'],
    ['169', '169'],
    ['-1', '-1'],
    ['1.5', '1.5'],
    ['six', 'six'],
    ['', ''],
    ['1&hours=2', null],
  ])('refuses hours=%s with 400 naming hours', async (value, shown) => {
    const answer = await fixture.get(`/local/v1/upcoming?hours=${value}`);
    expect(answer.status, answer.body).toBe(400);
    const error = answer.json() as { code: string; field: string; message: string };
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'hours' });
    expect(error.message).toContain('a whole number of hours from 1 to 168');
    if (shown !== null) expect(error.message).toContain(`'${shown}'`);
  });

  it('repeats its ETag as the clock moves while the deadlines are the same, and renews it when they change', async () => {
    const at = (iso: string) => (fixture.clock.now = new Date(iso));
    try {
      at('2026-11-26T05:00:00.000Z');
      const first = await fixture.get('/local/v1/upcoming');
      const tag = String(first.headers.etag);
      // A minute later the window has moved, and so have its bounds in the body; the deadlines have not.
      at('2026-11-26T05:01:00.000Z');
      const later = await fixture.get('/local/v1/upcoming', { 'if-none-match': tag });
      expect(later.status).toBe(304);
      expect(later.headers.etag).toBe(tag);
      // Past 05:15 the hourly deadline leaves the window and 11:15 enters it: a new answer.
      at('2026-11-26T05:16:00.000Z');
      const moved = await fixture.get('/local/v1/upcoming', { 'if-none-match': tag });
      expect(moved.status).toBe(200);
      expect(moved.headers.etag).not.toBe(tag);
    } finally {
      at(NOW.toISOString());
    }
  });

  it('keeps v2’s rules: a key is needed, HEAD and ETag work, the answer is in the OpenAPI document', async () => {
    expect((await fixture.get('/local/v1/upcoming', { authorization: '' })).status).toBe(401);
    const first = await fixture.get('/local/v1/upcoming');
    expect(first.headers.etag).toBeDefined();
    const again = await fixture.get('/local/v1/upcoming', { 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    const head = await fixture.request('HEAD', '/local/v1/upcoming');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    const other = await fixture.get('/local/v1/upcoming?hours=24', {
      authorization: `Bearer ${fixture.otherKey}`,
    });
    expect((other.json() as UpcomingDeadlines).deadlines.map((d) => d.datasetId)).toEqual(['theirs']);
    const openapi = await fixture.get('/v2/openapi.json', { authorization: '' });
    const paths = (openapi.json() as { paths: Record<string, unknown> }).paths;
    expect(Object.keys(paths)).toContain('/local/v1/upcoming');
  });
});
