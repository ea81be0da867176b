/**
 * Reliability statistics (docs/architecture.md#reliability) on hand-built histories: each case states a few deliveries and
 * expects what a person computes from them by hand — no deliveries, IN_PROGRESS and unknown statuses
 * waiting, unknown times, FAILED runs recovered, not recovered and recovered after the window, the
 * window's edges, nearest-rank quantiles, weeks (the oldest partial), grouping and the worst-first order,
 * and the cache that holds an answer per (org, revision, groupBy, days, hour).
 */
import { describe, expect, it } from 'vitest';
import { type DatasetHistory, OrgHistory, STATUS_CODE } from '../../../electron/knowledge/history';
import {
  STATS_SLICE_WORK,
  nearestRank,
  reliabilityStats,
  statsWindow,
  weekCount,
} from '../../../electron/knowledge/reliability';
import { OnCallKnowledge } from '../../../electron/knowledge/service';
import { StatsCache, statsWindowEnd } from '../../../electron/knowledge/statsCache';
import { Store } from '../../../electron/store/database';
import type { StatsDays, StatsGroupBy } from '../../../shared/reliability';
import { dailyDeliveries, scheduleConfig, syncHistories } from '../../helpers/history';

const ORG = 'acme';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The window's end: 2026-11-21 00:00 UTC. */
const TO = Date.parse('2026-11-21T00:00:00.000Z');

type Status = keyof typeof STATUS_CODE;
/** One delivery: deadline as days before TO (may be fractional), delivered as ms after the deadline. */
interface Delivery {
  daysAgo: number | null;
  status: Status;
  /** ms after the deadline (negative: early); null: unknown. */
  after?: number | null;
  /** Delivered at an absolute time instead (ms), for deliveries whose deadline is unknown. */
  deliveredAt?: number;
}

function dataset(
  datasetId: string,
  deliveries: Delivery[],
  facts: Partial<Pick<DatasetHistory, 'supplierId' | 'supplierName' | 'dataProductName' | 'name'>> = {},
): DatasetHistory {
  // Newest first, as the history holds them (an unknown deadline sorts oldest).
  const rows = deliveries
    .map((d) => {
      const deadline = d.daysAgo === null ? NaN : TO - d.daysAgo * DAY;
      const delivered =
        d.deliveredAt ?? (d.after === null || d.after === undefined ? NaN : deadline + d.after);
      return { deadline, delivered, status: STATUS_CODE[d.status] };
    })
    .sort(
      (a, b) =>
        (Number.isNaN(a.deadline) ? -Infinity : a.deadline) -
        (Number.isNaN(b.deadline) ? -Infinity : b.deadline),
    )
    .reverse();
  return {
    pk: 1,
    datasetId,
    name: facts.name ?? datasetId,
    supplierId: facts.supplierId ?? null,
    supplierName: facts.supplierName ?? null,
    dataProductName: facts.dataProductName ?? null,
    status: null,
    config: scheduleConfig('0 6 * * *'),
    deadlines: Float64Array.from(rows.map((r) => r.deadline)),
    delivered: Float64Array.from(rows.map((r) => r.delivered)),
    statuses: Uint8Array.from(rows.map((r) => r.status)),
    latestSettledDeadline: NaN,
  };
}

function org(datasets: DatasetHistory[], revision = 'r1'): OrgHistory {
  return OrgHistory.of(ORG, revision, datasets);
}

function stats(
  datasets: DatasetHistory[],
  groupBy: StatsGroupBy = 'dataset',
  days: StatsDays = 30,
  key?: string,
) {
  return reliabilityStats(org(datasets), { groupBy, window: statsWindow(TO, days), key: key ?? null });
}

const only = (datasets: DatasetHistory[], days: StatsDays = 30) => {
  const groups = stats(datasets, 'dataset', days).groups;
  expect(groups).toHaveLength(1);
  return groups[0]!;
};

describe('counts and rates', () => {
  it('a dataset without deliveries is a group of zeros with no rates, no lateness and no recoveries', () => {
    const group = only([dataset('quiet', [])]);
    expect(group.figures).toEqual({
      deliveries: 0,
      onTime: 0,
      late: 0,
      missing: 0,
      failed: 0,
      onTimeRate: null,
      lateRate: null,
      missingRate: null,
      failedRate: null,
      medianLatenessMs: null,
      p90LatenessMs: null,
      recoveries: 0,
      medianTimeToRecoverMs: null,
    });
    expect(group.weeks).toHaveLength(5);
    expect(group.weeks.every((week) => week.deliveries === 0 && week.onTimeRate === null)).toBe(true);
  });

  it('counts each settled status; IN_PROGRESS and unknown statuses wait', () => {
    const group = only([
      dataset('d', [
        { daysAgo: 1, status: 'HEALTHY', after: -60_000 },
        { daysAgo: 2, status: 'HEALTHY', after: 0 },
        { daysAgo: 3, status: 'DELIVERED_LATE', after: 30 * 60_000 },
        { daysAgo: 4, status: 'MISSING' },
        { daysAgo: 5, status: 'FAILED' },
        { daysAgo: 0.5, status: 'IN_PROGRESS' },
        { daysAgo: 6, status: 'UNKNOWN', after: 5 },
      ]),
    ]);
    expect(group.figures).toMatchObject({
      deliveries: 5,
      onTime: 2,
      late: 1,
      missing: 1,
      failed: 1,
      onTimeRate: 0.4,
      lateRate: 0.2,
      missingRate: 0.2,
      failedRate: 0.2,
    });
  });

  it('the window is [from, to): a deadline at `from` counts, one at `to` does not', () => {
    const group = only(
      [
        dataset('d', [
          { daysAgo: 7, status: 'HEALTHY', after: 0 },
          { daysAgo: 0, status: 'FAILED' },
          { daysAgo: 7.0001, status: 'MISSING' },
        ]),
      ],
      7,
    );
    expect(group.figures).toMatchObject({ deliveries: 1, onTime: 1, failed: 0, missing: 0 });
  });

  it('a delivery whose deadline is unknown is not counted; one whose delivered time is unknown has no lateness', () => {
    const group = only([
      dataset('d', [
        { daysAgo: null, status: 'DELIVERED_LATE', deliveredAt: TO - DAY },
        { daysAgo: 2, status: 'DELIVERED_LATE', after: null },
        { daysAgo: 3, status: 'HEALTHY', after: 5 * 60_000 },
      ]),
    ]);
    expect(group.figures).toMatchObject({
      deliveries: 2,
      late: 1,
      onTime: 1,
      medianLatenessMs: 5 * 60_000,
      p90LatenessMs: 5 * 60_000,
    });
  });
});

describe('lateness', () => {
  it('is delivered − deadline, 0 when early, nearest-rank median and p90 over HEALTHY and DELIVERED_LATE', () => {
    const minutes = [-30, 0, 10, 20, 30, 40, 50, 60, 70, 80, 90];
    const group = only([
      dataset('d', [
        ...minutes.map((m, i) => ({
          daysAgo: i + 1,
          status: (m > 0 ? 'DELIVERED_LATE' : 'HEALTHY') as Status,
          after: m * 60_000,
        })),
        // Neither MISSING nor FAILED has a lateness, even with a delivered time.
        { daysAgo: 20, status: 'FAILED', after: 999 * 60_000 },
        { daysAgo: 21, status: 'MISSING', after: 999 * 60_000 },
      ]),
    ]);
    // Sorted: 0, 0, 10, …, 90 (11 values): median rank ⌈5.5⌉ = 6 → 40; p90 rank ⌈9.9⌉ = 10 → 80.
    expect(group.figures.medianLatenessMs).toBe(40 * 60_000);
    expect(group.figures.p90LatenessMs).toBe(80 * 60_000);
  });

  it('nearest rank: the value at rank ⌈q·n⌉, at least the first', () => {
    expect(nearestRank([], 0.5)).toBeNull();
    expect(nearestRank([7], 0.5)).toBe(7);
    expect(nearestRank([1, 2], 0.5)).toBe(1);
    expect(nearestRank([1, 2, 3, 4], 0.9)).toBe(4);
    expect(nearestRank([1, 2, 3], 0)).toBe(1);
  });
});

describe('time to recover', () => {
  it('runs from the first FAILED of a run (its deadline when not delivered) to the next HEALTHY delivery', () => {
    const group = only([
      dataset('d', [
        { daysAgo: 5, status: 'FAILED' },
        { daysAgo: 4, status: 'FAILED', after: 60_000 },
        { daysAgo: 3, status: 'MISSING' },
        { daysAgo: 2, status: 'DELIVERED_LATE', after: HOUR },
        { daysAgo: 1, status: 'HEALTHY', after: -HOUR },
      ]),
    ]);
    expect(group.figures.recoveries).toBe(1);
    expect(group.figures.medianTimeToRecoverMs).toBe(4 * DAY - HOUR);
  });

  it("starts at the failed delivery's delivered time when it has one", () => {
    const group = only([
      dataset('d', [
        { daysAgo: 3, status: 'FAILED', after: 2 * HOUR },
        { daysAgo: 2, status: 'HEALTHY', after: 0 },
      ]),
    ]);
    expect(group.figures.medianTimeToRecoverMs).toBe(DAY - 2 * HOUR);
  });

  it('a run not recovered yet counts no recovery', () => {
    const group = only([
      dataset('d', [
        { daysAgo: 3, status: 'HEALTHY', after: 0 },
        { daysAgo: 2, status: 'FAILED' },
        { daysAgo: 1, status: 'MISSING' },
        { daysAgo: 0.5, status: 'IN_PROGRESS' },
      ]),
    ]);
    expect(group.figures).toMatchObject({ recoveries: 0, medianTimeToRecoverMs: null, failed: 1 });
  });

  it('counts in the window its recovery falls in: not before it, not after it, and from a failure older than it', () => {
    const window7 = only(
      [
        dataset('d', [
          // Failed 10 days ago, recovered 6 days ago: inside the 7-day window, though its failure is not.
          { daysAgo: 10, status: 'FAILED' },
          { daysAgo: 6, status: 'HEALTHY', after: 0 },
          // Failed 2 days ago, its HEALTHY delivery is due now and delivered after the window's end.
          { daysAgo: 2, status: 'FAILED' },
          { daysAgo: 0.25, status: 'HEALTHY', after: 7 * HOUR },
        ]),
      ],
      7,
    );
    expect(window7.figures.recoveries).toBe(1);
    expect(window7.figures.medianTimeToRecoverMs).toBe(4 * DAY);
    // Over the last 7 days, the failure 10 days ago is not a delivery of the window; its recovery is.
    expect(window7.figures.failed).toBe(1);
  });

  it('several episodes: the median of their lengths, nearest rank', () => {
    const group = only([
      dataset('d', [
        { daysAgo: 20, status: 'FAILED' },
        { daysAgo: 19, status: 'HEALTHY', after: 0 },
        { daysAgo: 15, status: 'FAILED' },
        { daysAgo: 12, status: 'HEALTHY', after: 0 },
        { daysAgo: 10, status: 'FAILED' },
        { daysAgo: 8, status: 'HEALTHY', after: 0 },
      ]),
    ]);
    expect(group.figures.recoveries).toBe(3);
    expect(group.figures.medianTimeToRecoverMs).toBe(2 * DAY);
  });

  it('an episode whose start is unknown closes uncounted', () => {
    const group = only([
      dataset('d', [
        { daysAgo: null, status: 'FAILED' },
        { daysAgo: 3, status: 'HEALTHY', after: 0 },
        { daysAgo: 2, status: 'FAILED' },
        { daysAgo: 1, status: 'HEALTHY', after: null },
      ]),
    ]);
    expect(group.figures.recoveries).toBe(0);
  });
});

describe('weeks', () => {
  it('7 days is one week, 30 five (the oldest 2 days), 90 thirteen (the oldest 6 days)', () => {
    expect([7, 30, 90].map(weekCount)).toEqual([1, 5, 13]);
    const weeks30 = only([dataset('d', [])], 30).weeks;
    expect(weeks30[0]).toMatchObject({ start: '2026-10-22T00:00:00.000Z', end: '2026-10-24T00:00:00.000Z' });
    expect(weeks30[4]).toMatchObject({ start: '2026-11-14T00:00:00.000Z', end: '2026-11-21T00:00:00.000Z' });
    const weeks90 = only([dataset('d', [])], 90).weeks;
    expect(weeks90).toHaveLength(13);
    expect(weeks90[0]!.start).toBe(new Date(TO - 90 * DAY).toISOString());
    expect(Date.parse(weeks90[0]!.end) - Date.parse(weeks90[0]!.start)).toBe(6 * DAY);
  });

  it('each delivery falls in the week of its deadline; the weeks add up to the window', () => {
    const group = only([
      dataset('d', [
        { daysAgo: 30, status: 'FAILED' },
        { daysAgo: 28.5, status: 'MISSING' },
        { daysAgo: 28, status: 'HEALTHY', after: 0 },
        { daysAgo: 7.5, status: 'DELIVERED_LATE', after: HOUR },
        { daysAgo: 6.9, status: 'HEALTHY', after: 0 },
        { daysAgo: 0.1, status: 'HEALTHY', after: 0 },
      ]),
    ]);
    expect(group.weeks.map((w) => [w.deliveries, w.onTime, w.late, w.missing, w.failed])).toEqual([
      [2, 0, 0, 1, 1],
      [1, 1, 0, 0, 0],
      [0, 0, 0, 0, 0],
      [1, 0, 1, 0, 0],
      [2, 2, 0, 0, 0],
    ]);
    expect(group.weeks.map((w) => w.onTimeRate)).toEqual([0, 1, null, 0, 1]);
    expect(group.weeks.reduce((sum, w) => sum + w.deliveries, 0)).toBe(group.figures.deliveries);
  });
});

describe('groups', () => {
  const datasets = [
    dataset('a', [{ daysAgo: 1, status: 'HEALTHY', after: 0 }], {
      supplierId: 's1',
      supplierName: 'Bluefin',
      dataProductName: 'Prices',
    }),
    dataset('b', [{ daysAgo: 1, status: 'FAILED' }], { supplierId: 's1', supplierName: 'Bluefin' }),
    dataset('c', [{ daysAgo: 2, status: 'MISSING' }], { supplierId: 's2', supplierName: 'Coral' }),
    dataset('d', [], { supplierId: 's3', supplierName: 'Dune', dataProductName: 'Rates' }),
    dataset(
      'e',
      [
        { daysAgo: 1, status: 'HEALTHY', after: 0 },
        { daysAgo: 2, status: 'FAILED' },
      ],
      { supplierId: null, dataProductName: 'Prices' },
    ),
  ];

  it('per supplier: its datasets together, the first name seen, "" for datasets naming none', () => {
    const { groups } = stats(datasets, 'supplier');
    expect(
      groups.map((g) => [g.key, g.name, g.datasets, g.figures.deliveries, g.figures.onTimeRate]),
    ).toEqual([
      ['s2', 'Coral', 1, 1, 0],
      ['', null, 1, 2, 0.5],
      ['s1', 'Bluefin', 2, 2, 0.5],
      ['s3', 'Dune', 1, 0, null],
    ]);
  });

  it('per data product, the product name as key and name', () => {
    const { groups } = stats(datasets, 'dataProduct');
    expect(groups.map((g) => [g.key, g.name, g.datasets, g.figures.deliveries])).toEqual([
      ['', null, 2, 2],
      ['Prices', 'Prices', 2, 3],
      ['Rates', 'Rates', 1, 0],
    ]);
  });

  it('worst first: lowest on-time rate, then most deliveries, then key; no deliveries last', () => {
    const { groups } = stats(datasets, 'dataset');
    expect(groups.map((g) => g.key)).toEqual(['b', 'c', 'e', 'a', 'd']);
  });

  it('a key answers that group alone; an unknown key, none', () => {
    expect(stats(datasets, 'supplier', 30, 's1').groups.map((g) => [g.key, g.datasets])).toEqual([['s1', 2]]);
    expect(stats(datasets, 'dataset', 30, 'e').groups.map((g) => g.key)).toEqual(['e']);
    expect(stats(datasets, 'dataProduct', 30, '').groups.map((g) => g.datasets)).toEqual([2]);
    expect(stats(datasets, 'dataset', 30, 'nope').groups).toEqual([]);
  });

  it('states its window and grouping', () => {
    expect(stats(datasets, 'supplier', 90)).toMatchObject({
      orgId: ORG,
      groupBy: 'supplier',
      days: 90,
      from: '2026-08-23T00:00:00.000Z',
      to: '2026-11-21T00:00:00.000Z',
    });
  });
});

describe('StatsCache', () => {
  const datasets = [dataset('a', [{ daysAgo: 1, status: 'HEALTHY', after: 0 }], { supplierId: 's1' })];

  it("ends the window at the start of now's hour (UTC)", () => {
    expect(statsWindowEnd(TO + 59 * 60_000 + 59_999)).toBe(TO);
    expect(statsWindowEnd(TO + HOUR)).toBe(TO + HOUR);
  });

  it('holds an answer while the revision and the hour stay; computes anew when either moves', async () => {
    const cache = new StatsCache();
    const first = await cache.get(org(datasets, 'r1'), 'supplier', 30, TO);
    expect(await cache.get(org(datasets, 'r1'), 'supplier', 30, TO)).toEqual(first);
    expect(cache.computed).toBe(1);
    const later = await cache.get(org(datasets, 'r1'), 'supplier', 30, TO + HOUR);
    expect(cache.computed).toBe(2);
    expect(later.to).toBe(new Date(TO + HOUR).toISOString());
    // The same deliveries at a new revision: computed again, to the same answer.
    expect(await cache.get(org(datasets, 'r2'), 'supplier', 30, TO + HOUR)).toEqual(later);
    expect(cache.computed).toBe(3);
    await cache.get(org(datasets, 'r2'), 'supplier', 7, TO + HOUR);
    await cache.get(org(datasets, 'r2'), 'dataset', 30, TO + HOUR);
    expect(cache.computed).toBe(5);
  });

  it('a key is read from the held answer when there is one, else from its datasets alone', async () => {
    const cache = new StatsCache();
    const alone = await cache.get(org(datasets), 'supplier', 30, TO, 's1');
    expect(cache.computed).toBe(1);
    const held = await cache.get(org(datasets), 'supplier', 30, TO);
    expect(await cache.get(org(datasets), 'supplier', 30, TO, 's1')).toEqual(alone);
    expect(cache.computed).toBe(2);
    expect(held.groups).toEqual(alone.groups);
    cache.forget(ORG);
    await cache.get(org(datasets), 'supplier', 30, TO);
    expect(cache.computed).toBe(3);
  });

  it('computes in slices with a turn between them; those asking meanwhile share the one computation', async () => {
    const hundred: Delivery[] = Array.from({ length: 100 }, (_, day) => ({
      daysAgo: day + 0.5,
      status: 'HEALTHY',
      after: 0,
    }));
    const many = Array.from({ length: 2500 }, (_, i) => dataset(`d${String(i).padStart(4, '0')}`, hundred));
    let turns = 0;
    const cache = new StatsCache({
      between: () => {
        turns += 1;
        return new Promise((resolve) => setImmediate(resolve));
      },
    });
    const history = org(many);
    const [a, b, one] = await Promise.all([
      cache.get(history, 'dataset', 7, TO),
      cache.get(history, 'dataset', 7, TO),
      cache.get(history, 'dataset', 7, TO, 'd0042'),
    ]);
    expect(cache.computed).toBe(1);
    expect(b).toEqual(a);
    expect(one.groups.map((g) => g.key)).toEqual(['d0042']);
    // 250,000 deliveries walked, then 2,500 groups of 7 lateness values each finished: a turn per slice.
    const work = 2500 * (1 + 100) + 2500 * (100 + 7);
    expect(turns).toBeGreaterThanOrEqual(Math.floor(work / STATS_SLICE_WORK) - 1);
    expect(turns).toBeLessThanOrEqual(Math.ceil(work / STATS_SLICE_WORK));
    expect(a).toEqual(reliabilityStats(history, { groupBy: 'dataset', window: statsWindow(TO, 7) }));
  });

  it('holds at most its bytes of answers, the least recently used going first', async () => {
    const three = ['a', 'b', 'c'].map((id) => dataset(id, [], { supplierId: id }));
    const bytesOf = async (groupBy: StatsGroupBy, days: StatsDays) => {
      const alone = new StatsCache();
      await alone.get(org(three), groupBy, days, TO);
      return alone.heldBytes();
    };
    // Room for the per-dataset 7 days and the per-supplier 30 days together, not for a third answer.
    const [dataset7, supplier7, supplier30] = await Promise.all([
      bytesOf('dataset', 7),
      bytesOf('supplier', 7),
      bytesOf('supplier', 30),
    ]);
    expect(supplier7).toBeLessThan(supplier30);
    const cache = new StatsCache({ maxHeldBytes: dataset7 + supplier30 });
    await cache.get(org(three), 'dataset', 7, TO);
    await cache.get(org(three), 'supplier', 7, TO);
    expect(cache.heldSlots()).toEqual([`${ORG}\u0000dataset\u00007`, `${ORG}\u0000supplier\u00007`]);
    // Used again: now the most recent.
    await cache.get(org(three), 'dataset', 7, TO);
    await cache.get(org(three), 'supplier', 30, TO);
    expect(cache.heldSlots()).toEqual([`${ORG}\u0000dataset\u00007`, `${ORG}\u0000supplier\u000030`]);
    expect(cache.heldBytes()).toBe(dataset7 + supplier30);
    // Alone over the limit, the newest still stays.
    const small = new StatsCache({ maxHeldBytes: 1 });
    await small.get(org(three), 'dataset', 90, TO);
    expect(small.heldSlots()).toHaveLength(1);
  });
});

describe('OnCallKnowledge.stats', () => {
  it('warm() precomputes supplier/30 days; a look then reads it; a sync or the next hour computes anew', async () => {
    const store = await Store.open({ dataDir: null });
    try {
      const clock = { now: new Date(TO + 10 * 60_000) };
      const knowledge = new OnCallKnowledge({ store, now: () => clock.now, sources: () => [] });
      const spec = (status: string) => ({
        id: 'd1',
        cron: '0 6 * * *',
        deliveries: dailyDeliveries('2026-11-20T06:00:00Z', [
          { status, offsetMinutes: 0 },
          { status: 'HEALTHY', offsetMinutes: -5 },
        ]),
      });
      await syncHistories(store, ORG, [spec('FAILED')], clock.now);
      await knowledge.warm(ORG);
      expect(knowledge.statsCache.computed).toBe(1);
      const first = await knowledge.stats(ORG, 'supplier', 30);
      expect(knowledge.statsCache.computed).toBe(1);
      expect(first.groups[0]!.figures).toMatchObject({ deliveries: 2, failed: 1, onTime: 1 });
      // The dataset view's chart: one dataset, read from the held answer's grouping or its own datasets.
      expect((await knowledge.stats(ORG, 'dataset', 30, 'd1')).groups.map((g) => g.key)).toEqual(['d1']);

      // The next sync changes the history: the next look computes again and sees it.
      clock.now = new Date(TO + 20 * 60_000);
      await syncHistories(store, ORG, [spec('HEALTHY')], clock.now);
      const after = await knowledge.stats(ORG, 'supplier', 30);
      expect(after.groups[0]!.figures).toMatchObject({ failed: 0, onTime: 2 });
      const computed = knowledge.statsCache.computed;
      clock.now = new Date(TO + HOUR + 60_000);
      expect((await knowledge.stats(ORG, 'supplier', 30)).to).toBe(new Date(TO + HOUR).toISOString());
      expect(knowledge.statsCache.computed).toBe(computed + 1);
    } finally {
      await store.close();
    }
  });
});
