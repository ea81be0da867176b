/**
 * A computed reliability answer in columns (docs/decisions.md "Statistics held in columns"): what the
 * statistics cache holds, and how the answer — groups worst first, with or without their weeks — is made
 * of it on each look. A 100k org's answer per dataset over 90 days is some 30 MB so, against some
 * 250 MB as objects.
 */
import type {
  ReliabilityFigures,
  ReliabilityStats,
  StatsDays,
  StatsGroup,
  StatsGroupBy,
  WeekFigures,
} from '../../shared/reliability';
import { STATUS_CODE } from './historyColumns';

export const DAY_MS = 86_400_000;
export const WEEK_MS = 7 * DAY_MS;

/** The window a statistic covers: [from, to) in epoch ms, in weeks ending at `to`. */
export interface StatsWindow {
  from: number;
  to: number;
  days: StatsDays;
}

/** The window of `days` ending at `to`. */
export function statsWindow(to: number, days: StatsDays): StatsWindow {
  return { from: to - days * DAY_MS, to, days };
}

/** How many weeks the trend of a window has (the oldest may be partial). */
export const weekCount = (days: number): number => Math.ceil(days / 7);

/** Settled statuses in the order a table keeps their counts. */
export const SETTLED = [
  STATUS_CODE.HEALTHY,
  STATUS_CODE.DELIVERED_LATE,
  STATUS_CODE.MISSING,
  STATUS_CODE.FAILED,
] as const;

/**
 * A computed answer in columns — what the statistics cache holds (a 100k org's answer per dataset over
 * 90 days is some 30 MB so, against some 250 MB as objects). `statsOf` makes the answer of it.
 */
export interface StatsTable {
  orgId: string;
  groupBy: StatsGroupBy;
  window: StatsWindow;
  weeks: number;
  count: number;
  /** Group indexes, worst first. */
  order: Uint32Array;
  keys: string[];
  names: (string | null)[];
  /** Per dataset only: each group's supplier id and name. */
  supplierIds: (string | null)[] | null;
  supplierNames: (string | null)[] | null;
  datasets: Uint32Array;
  /** Per group, the SETTLED counts. */
  counts: Uint32Array;
  recoveries: Uint32Array;
  /** Per group: median and p90 lateness, median time to recover (NaN: none). */
  times: Float64Array;
  /** Per group and week (oldest first), the SETTLED counts. */
  weekCounts: Uint32Array;
  /** What it holds, counted honestly (its arrays and their slots). */
  bytes: number;
}

/** Worst first: lowest on-time rate, then most deliveries, then key; groups without deliveries last. */
export function worstFirst(table: StatsTable): Uint32Array {
  const deliveries = new Float64Array(table.count);
  const rates = new Float64Array(table.count);
  const c = table.counts;
  for (let g = 0; g < table.count; g += 1) {
    deliveries[g] = c[g * 4]! + c[g * 4 + 1]! + c[g * 4 + 2]! + c[g * 4 + 3]!;
    rates[g] = deliveries[g] === 0 ? NaN : c[g * 4]! / deliveries[g]!;
  }
  const { keys } = table;
  return Uint32Array.from(keys.keys()).sort((a, b) => {
    const aRate = rates[a]!;
    const bRate = rates[b]!;
    if (Number.isNaN(aRate) || Number.isNaN(bRate)) {
      if (Number.isNaN(aRate) !== Number.isNaN(bRate)) return Number.isNaN(aRate) ? 1 : -1;
    } else if (aRate !== bRate) {
      return aRate - bRate;
    }
    if (deliveries[a] !== deliveries[b]) return deliveries[b]! - deliveries[a]!;
    return keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0;
  });
}

/** What a table holds, counted honestly: its arrays, and a slot per string it refers to (the strings are the history's). */
export function tableBytes(table: StatsTable): number {
  const slots = table.keys.length + table.names.length + 2 * (table.supplierIds?.length ?? 0);
  const arrays = [table.order, table.datasets, table.counts, table.recoveries, table.times, table.weekCounts];
  return 256 + 8 * slots + arrays.reduce((sum, array) => sum + array.byteLength, 0);
}

const iso = (ms: number) => new Date(ms).toISOString();
const orNull = (value: number): number | null => (Number.isNaN(value) ? null : value);
const rate = (count: number, total: number): number | null => (total === 0 ? null : count / total);

/** The weeks' bounds of a window as RFC 3339 texts, oldest first: made once, shared by every group. */
function weekBounds(window: StatsWindow): { start: string; end: string }[] {
  const weeks = weekCount(window.days);
  return Array.from({ length: weeks }, (_, week) => {
    const end = window.to - (weeks - 1 - week) * WEEK_MS;
    return { start: iso(Math.max(window.from, end - WEEK_MS)), end: iso(end) };
  });
}

function figuresOf(table: StatsTable, g: number): ReliabilityFigures {
  const c = table.counts;
  const onTime = c[g * 4]!;
  const late = c[g * 4 + 1]!;
  const missing = c[g * 4 + 2]!;
  const failed = c[g * 4 + 3]!;
  const total = onTime + late + missing + failed;
  return {
    deliveries: total,
    onTime,
    late,
    missing,
    failed,
    onTimeRate: rate(onTime, total),
    lateRate: rate(late, total),
    missingRate: rate(missing, total),
    failedRate: rate(failed, total),
    medianLatenessMs: orNull(table.times[g * 3]!),
    p90LatenessMs: orNull(table.times[g * 3 + 1]!),
    recoveries: table.recoveries[g]!,
    medianTimeToRecoverMs: orNull(table.times[g * 3 + 2]!),
  };
}

/** Counts below this are packed into one number (4 × 13 bits): the key of a week's figures. */
const PACKED = 8192;

/**
 * A week's figures, one object per distinct week in one answer: most datasets' weeks look alike (seven
 * on time), so a 100k org's 1.3 million weeks over 90 days are a few thousand objects. The answer is
 * read, never edited (the cache made it for this look alone, and its consumers serialize it).
 */
class WeekFiguresOf {
  private readonly made: Map<number, WeekFigures>[];

  constructor(
    private readonly table: StatsTable,
    private readonly bounds: { start: string; end: string }[],
  ) {
    this.made = bounds.map(() => new Map());
  }

  of(g: number): WeekFigures[] {
    const c = this.table.weekCounts;
    return this.bounds.map(({ start, end }, week) => {
      const base = (g * this.table.weeks + week) * 4;
      const onTime = c[base]!;
      const late = c[base + 1]!;
      const missing = c[base + 2]!;
      const failed = c[base + 3]!;
      const packs = onTime < PACKED && late < PACKED && missing < PACKED && failed < PACKED;
      const key = packs ? ((onTime * PACKED + late) * PACKED + missing) * PACKED + failed : -1;
      const held = packs ? this.made[week]!.get(key) : undefined;
      if (held !== undefined) return held;
      const deliveries = onTime + late + missing + failed;
      const figures = {
        start,
        end,
        deliveries,
        onTime,
        late,
        missing,
        failed,
        onTimeRate: rate(onTime, deliveries),
      };
      if (packs) this.made[week]!.set(key, figures);
      return figures;
    });
  }
}

/** The answer a table holds, worst first: every group or `key`'s alone, with or without the weeks. */
export function statsOf(
  table: StatsTable,
  options: { weeks: boolean; key?: string | null } = { weeks: true },
): ReliabilityStats {
  const key = options.key ?? null;
  const weeks = options.weeks ? new WeekFiguresOf(table, weekBounds(table.window)) : null;
  const groups: StatsGroup[] = [];
  for (const g of table.order) {
    if (key !== null && table.keys[g] !== key) continue;
    groups.push({
      key: table.keys[g]!,
      name: table.names[g]!,
      supplier:
        table.supplierIds === null ? null : { id: table.supplierIds[g]!, name: table.supplierNames![g]! },
      datasets: table.datasets[g]!,
      figures: figuresOf(table, g),
      weeks: weeks === null ? [] : weeks.of(g),
    });
  }
  return {
    orgId: table.orgId,
    groupBy: table.groupBy,
    days: table.window.days,
    from: iso(table.window.from),
    to: iso(table.window.to),
    groups,
  };
}
