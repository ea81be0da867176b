/**
 * Reliability statistics against an independent, naive computation (issue 14: "statistics against an
 * independent computation on generated histories"): generated orgs of datasets with random suppliers,
 * products and deliveries (every status, unknown times, deliveries around the windows' edges), kept as
 * plain arrays of { deadline, delivered, status }; the naive side filters and sorts them the long way
 * for every grouping and window, and must agree with the one-pass computation on the typed arrays —
 * whole answers, a single group's answer too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DatasetHistory, OrgHistory, STATUS_CODE } from '../../../electron/knowledge/history';
import { reliabilityStats, statsWindow } from '../../../electron/knowledge/reliability';
import {
  type ReliabilityFigures,
  type ReliabilityStats,
  STATS_DAYS,
  STATS_GROUPS,
  type StatsDays,
  type StatsGroup,
  type StatsGroupBy,
  type WeekFigures,
} from '../../../shared/reliability';
import { scheduleConfig } from '../../helpers/history';

const DAY = 86_400_000;
const TO = Date.parse('2026-11-21T00:00:00.000Z');
const ORG = 'acme';

type Status = 'HEALTHY' | 'DELIVERED_LATE' | 'MISSING' | 'FAILED' | 'IN_PROGRESS' | null;
interface Plain {
  deadline: number | null;
  delivered: number | null;
  status: Status;
}
interface PlainDataset {
  id: string;
  name: string | null;
  supplierId: string | null;
  supplierName: string | null;
  product: string | null;
  deliveries: Plain[];
}

// ---------------------------------------------------------------- generated histories

const STATUSES: Status[] = ['HEALTHY', 'DELIVERED_LATE', 'MISSING', 'FAILED', 'IN_PROGRESS', null];
/** Deadlines in whole minutes from 95 days before TO to a day after it (past every window's edges). */
const deadlineMinute = fc.integer({ min: -95 * 24 * 60, max: 24 * 60 });

const plainDataset = (index: number) =>
  fc
    .record({
      minutes: fc.uniqueArray(deadlineMinute, { maxLength: 40 }),
      // Edges: exactly at a window's start or end.
      edges: fc.subarray([0, -7 * 24 * 60, -30 * 24 * 60, -90 * 24 * 60, -28 * 24 * 60]),
      unknownDeadline: fc.boolean(),
      details: fc.array(
        fc.record({
          status: fc.constantFrom(...STATUSES),
          // Delivered: unknown, or from an hour early to three days late (in seconds).
          offset: fc.option(fc.integer({ min: -3600, max: 3 * 86_400 }), { freq: 6 }),
        }),
        { minLength: 46, maxLength: 46 },
      ),
      supplier: fc.option(fc.constantFrom('s1', 's2', 's3'), { freq: 5 }),
      supplierNamed: fc.boolean(),
      product: fc.option(fc.constantFrom('Prices', 'Rates'), { freq: 5 }),
      named: fc.boolean(),
    })
    .map(({ minutes, edges, unknownDeadline, details, supplier, supplierNamed, product, named }) => {
      const deadlines: (number | null)[] = [...new Set([...minutes, ...edges])].map((m) => TO + m * 60_000);
      if (unknownDeadline) deadlines.push(null);
      const deliveries = deadlines.map((deadline, i): Plain => {
        const { status, offset } = details[i % details.length]!;
        // A delivery with an unknown deadline may still have a delivered time.
        const base = deadline ?? TO - 3 * DAY;
        return { deadline, delivered: offset === null ? null : base + offset * 1000, status };
      });
      return {
        id: `d${index}`,
        name: named ? `Dataset ${index}` : null,
        supplierId: supplier,
        supplierName: supplier !== null && supplierNamed ? `Supplier ${supplier}` : null,
        product,
        deliveries,
      } satisfies PlainDataset;
    });

const plainOrg = fc
  .integer({ min: 0, max: 8 })
  .chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => plainDataset(i))));

/** The history as the engine holds it: typed arrays, newest first (unknown deadlines oldest). */
function historyOf(datasets: PlainDataset[]): OrgHistory {
  const held = datasets.map((plain, pk): DatasetHistory => {
    const key = (t: number | null) => t ?? -Infinity;
    const rows = [...plain.deliveries].sort(
      (a, b) => key(b.deadline) - key(a.deadline) || key(b.delivered) - key(a.delivered),
    );
    return {
      pk,
      datasetId: plain.id,
      name: plain.name,
      supplierId: plain.supplierId,
      supplierName: plain.supplierName,
      dataProductName: plain.product,
      status: null,
      config: scheduleConfig('0 6 * * *'),
      deadlines: Float64Array.from(rows, (r) => r.deadline ?? NaN),
      delivered: Float64Array.from(rows, (r) => r.delivered ?? NaN),
      statuses: Uint8Array.from(rows, (r) =>
        r.status === null ? STATUS_CODE.UNKNOWN : STATUS_CODE[r.status],
      ),
      latestSettledDeadline: NaN,
    };
  });
  return OrgHistory.of(ORG, 'r', held);
}

// ---------------------------------------------------------------- the naive computation

const SETTLED = new Set<Status>(['HEALTHY', 'DELIVERED_LATE', 'MISSING', 'FAILED']);

function quantile(values: number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

function keyOf(plain: PlainDataset, groupBy: StatsGroupBy): string {
  if (groupBy === 'dataset') return plain.id;
  return (groupBy === 'supplier' ? plain.supplierId : plain.product) ?? '';
}

function nameOf(plain: PlainDataset, groupBy: StatsGroupBy): string | null {
  if (groupBy === 'dataset') return plain.name;
  return groupBy === 'supplier' ? plain.supplierName : plain.product;
}

/** The recovery times (ms) of one dataset's episodes that ended in [from, to). */
function recoveries(deliveries: Plain[], from: number, to: number): number[] {
  // Oldest first: by deadline (unknown first), then delivered (unknown first).
  const order = (t: number | null) => (t === null ? -Infinity : t);
  const sorted = [...deliveries].sort(
    (a, b) => order(a.deadline) - order(b.deadline) || order(a.delivered) - order(b.delivered),
  );
  const out: number[] = [];
  let previousHealthy = -1;
  sorted.forEach((delivery, i) => {
    if (delivery.status !== 'HEALTHY') return;
    // The deliveries since the last HEALTHY one: an episode when any of them FAILED, from the first.
    const between = sorted.slice(previousHealthy + 1, i);
    previousHealthy = i;
    const first = between.find((d) => d.status === 'FAILED');
    if (first === undefined) return;
    const start = first.delivered ?? first.deadline;
    const end = delivery.delivered;
    if (start === null || end === null || end < from || end >= to) return;
    out.push(Math.max(0, end - start));
  });
  return out;
}

function counted(deliveries: Plain[], start: number, end: number): Plain[] {
  return deliveries.filter(
    (d) => SETTLED.has(d.status) && d.deadline !== null && d.deadline >= start && d.deadline < end,
  );
}

const share = (count: number, total: number) => (total === 0 ? null : count / total);

function naiveFigures(datasets: PlainDataset[], from: number, to: number): ReliabilityFigures {
  const all = datasets.flatMap((d) => counted(d.deliveries, from, to));
  const count = (status: Status) => all.filter((d) => d.status === status).length;
  const lateness = all
    .filter((d) => (d.status === 'HEALTHY' || d.status === 'DELIVERED_LATE') && d.delivered !== null)
    .map((d) => Math.max(0, d.delivered! - d.deadline!));
  const recovered = datasets.flatMap((d) => recoveries(d.deliveries, from, to));
  return {
    deliveries: all.length,
    onTime: count('HEALTHY'),
    late: count('DELIVERED_LATE'),
    missing: count('MISSING'),
    failed: count('FAILED'),
    onTimeRate: share(count('HEALTHY'), all.length),
    lateRate: share(count('DELIVERED_LATE'), all.length),
    missingRate: share(count('MISSING'), all.length),
    failedRate: share(count('FAILED'), all.length),
    medianLatenessMs: quantile(lateness, 0.5),
    p90LatenessMs: quantile(lateness, 0.9),
    recoveries: recovered.length,
    medianTimeToRecoverMs: quantile(recovered, 0.5),
  };
}

function naiveWeeks(datasets: PlainDataset[], from: number, to: number, days: number): WeekFigures[] {
  const weeks: WeekFigures[] = [];
  // Back from the window's end, a week at a time, until the window's start.
  for (let end = to; end > from; end -= 7 * DAY) {
    const start = Math.max(from, end - 7 * DAY);
    const all = datasets.flatMap((d) => counted(d.deliveries, start, end));
    const count = (status: Status) => all.filter((d) => d.status === status).length;
    weeks.unshift({
      start: new Date(start).toISOString(),
      end: new Date(end).toISOString(),
      deliveries: all.length,
      onTime: count('HEALTHY'),
      late: count('DELIVERED_LATE'),
      missing: count('MISSING'),
      failed: count('FAILED'),
      onTimeRate: share(count('HEALTHY'), all.length),
    });
  }
  expect(weeks).toHaveLength(Math.ceil(days / 7));
  return weeks;
}

function naiveStats(datasets: PlainDataset[], groupBy: StatsGroupBy, days: StatsDays): ReliabilityStats {
  const from = TO - days * DAY;
  const keys = [...new Set(datasets.map((d) => keyOf(d, groupBy)))];
  const groups = keys.map((key): StatsGroup => {
    const members = datasets.filter((d) => keyOf(d, groupBy) === key);
    return {
      key,
      name: members.map((d) => nameOf(d, groupBy)).find((name) => name !== null) ?? null,
      supplier: groupBy === 'dataset' ? { id: members[0]!.supplierId, name: members[0]!.supplierName } : null,
      datasets: members.length,
      figures: naiveFigures(members, from, TO),
      weeks: naiveWeeks(members, from, TO, days),
    };
  });
  // Groups with deliveries by on-time rate, most deliveries, key; then the rest by key.
  const withDeliveries = groups.filter((g) => g.figures.deliveries > 0);
  const without = groups.filter((g) => g.figures.deliveries === 0);
  withDeliveries.sort(
    (a, b) =>
      a.figures.onTimeRate! - b.figures.onTimeRate! ||
      b.figures.deliveries - a.figures.deliveries ||
      (a.key < b.key ? -1 : 1),
  );
  without.sort((a, b) => (a.key < b.key ? -1 : 1));
  return {
    orgId: ORG,
    groupBy,
    days,
    from: new Date(from).toISOString(),
    to: new Date(TO).toISOString(),
    groups: [...withDeliveries, ...without],
  };
}

// ---------------------------------------------------------------- the properties

describe.each(STATS_GROUPS.flatMap((groupBy) => STATS_DAYS.map((days) => [groupBy, days] as const)))(
  'by %s over %i days',
  (groupBy, days) => {
    it('agrees with the naive computation on generated histories', () => {
      fc.assert(
        fc.property(plainOrg, (datasets) => {
          const stats = reliabilityStats(historyOf(datasets), { groupBy, window: statsWindow(TO, days) });
          expect(stats).toEqual(naiveStats(datasets, groupBy, days));
        }),
        { numRuns: 150, seed: 14 },
      );
    });

    it("a key's answer is that group of the whole answer", () => {
      fc.assert(
        fc.property(plainOrg, fc.nat(), (datasets, pick) => {
          const history = historyOf(datasets);
          const whole = reliabilityStats(history, { groupBy, window: statsWindow(TO, days) });
          const key = whole.groups.length === 0 ? 'nobody' : whole.groups[pick % whole.groups.length]!.key;
          const alone = reliabilityStats(history, { groupBy, window: statsWindow(TO, days), key });
          expect(alone).toEqual({ ...whole, groups: whole.groups.filter((g) => g.key === key) });
        }),
        { numRuns: 50, seed: 14 },
      );
    });
  },
);
