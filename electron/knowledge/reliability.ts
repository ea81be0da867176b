/**
 * Reliability statistics (docs/architecture.md#reliability) from the org's history in memory: per dataset, supplier or data
 * product over a window of 7, 30 or 90 days, one pass over each dataset's typed arrays.
 *
 * Definitions (README "Reliability statistics" says the same):
 * - A delivery counts when it is settled (HEALTHY, DELIVERED_LATE, MISSING, FAILED) and its deadline is
 *   known and in [from, to). On time = HEALTHY, late = DELIVERED_LATE; rates are count / deliveries.
 * - Lateness: max(0, delivered − deadline) over the HEALTHY and DELIVERED_LATE deliveries with both
 *   times known. Median and p90 are nearest-rank: the value at rank ⌈q·n⌉ of the sorted values.
 * - Time to recover: an episode opens at a FAILED delivery (oldest first, when none is open) at its
 *   failure time (its delivered time, else its deadline) and closes at the dataset's next HEALTHY
 *   delivery, at that delivery's delivered time; whatever lies between (more FAILED, MISSING, late) is
 *   the same episode. It counts in the window its end falls in; one whose start or end is unknown is
 *   not counted. Its length is end − start, at least 0.
 * - Weeks end at the window's end: the newest is [to − 7 d, to); the oldest starts at `from`, so it is
 *   shorter when the days are not whole weeks (30 days: 4 weeks and an oldest of 2 days; 90: 12 and 6).
 */
import type {
  ReliabilityFigures,
  ReliabilityStats,
  StatsDays,
  StatsGroup,
  StatsGroupBy,
  WeekFigures,
} from '../../shared/reliability';
import { type DatasetHistory, type OrgHistory, STATUS_CODE } from './history';

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

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

/** The nearest-rank q-quantile of values sorted ascending (rank ⌈q·n⌉, at least 1); null when empty. */
export function nearestRank(sorted: ArrayLike<number>, q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}

/** The group key of a dataset. */
export function groupKeyOf(dataset: DatasetHistory, groupBy: StatsGroupBy): string {
  if (groupBy === 'dataset') return dataset.datasetId;
  if (groupBy === 'supplier') return dataset.supplierId ?? '';
  return dataset.dataProductName ?? '';
}

function groupNameOf(dataset: DatasetHistory, groupBy: StatsGroupBy): string | null {
  if (groupBy === 'dataset') return dataset.name;
  if (groupBy === 'supplier') return dataset.supplierName;
  return dataset.dataProductName;
}

/** Numbers gathered into a typed array that grows as needed (no boxed array at 10k × 100). */
class Values {
  private buffer = new Float64Array(0);
  length = 0;

  push(value: number): void {
    if (this.length === this.buffer.length) {
      const grown = new Float64Array(Math.max(8, this.buffer.length * 2));
      grown.set(this.buffer);
      this.buffer = grown;
    }
    this.buffer[this.length] = value;
    this.length += 1;
  }

  /** The values in ascending order (a typed array sorts numerically, in native code). */
  sorted(): Float64Array {
    return this.buffer.subarray(0, this.length).sort();
  }
}

/** Counts per status (index = status code) with the lateness and recovery times, as one group gathers them. */
class Accumulator {
  name: string | null = null;
  supplier: StatsGroup['supplier'] = null;
  datasets = 0;
  readonly counts = new Float64Array(STATUS_CODE.FAILED + 1);
  /** Per week (0 = oldest) and status code. */
  readonly weekCounts: Float64Array;
  readonly lateness = new Values();
  readonly recovered = new Values();

  constructor(
    readonly key: string,
    weeks: number,
  ) {
    this.weekCounts = new Float64Array(weeks * (STATUS_CODE.FAILED + 1));
  }
}

const rate = (count: number, total: number): number | null => (total === 0 ? null : count / total);

function figuresOf(acc: Accumulator): ReliabilityFigures {
  const c = acc.counts;
  const total =
    c[STATUS_CODE.HEALTHY]! +
    c[STATUS_CODE.DELIVERED_LATE]! +
    c[STATUS_CODE.MISSING]! +
    c[STATUS_CODE.FAILED]!;
  const lateness = acc.lateness.sorted();
  const recovered = acc.recovered.sorted();
  return {
    deliveries: total,
    onTime: c[STATUS_CODE.HEALTHY]!,
    late: c[STATUS_CODE.DELIVERED_LATE]!,
    missing: c[STATUS_CODE.MISSING]!,
    failed: c[STATUS_CODE.FAILED]!,
    onTimeRate: rate(c[STATUS_CODE.HEALTHY]!, total),
    lateRate: rate(c[STATUS_CODE.DELIVERED_LATE]!, total),
    missingRate: rate(c[STATUS_CODE.MISSING]!, total),
    failedRate: rate(c[STATUS_CODE.FAILED]!, total),
    medianLatenessMs: nearestRank(lateness, 0.5),
    p90LatenessMs: nearestRank(lateness, 0.9),
    recoveries: recovered.length,
    medianTimeToRecoverMs: nearestRank(recovered, 0.5),
  };
}

/** The weeks' bounds of a window as RFC 3339 texts, oldest first: made once, shared by every group. */
function weekBounds(window: StatsWindow): { start: string; end: string }[] {
  const weeks = weekCount(window.days);
  return Array.from({ length: weeks }, (_, week) => {
    const end = window.to - (weeks - 1 - week) * WEEK_MS;
    return {
      start: new Date(Math.max(window.from, end - WEEK_MS)).toISOString(),
      end: new Date(end).toISOString(),
    };
  });
}

function weeksOf(acc: Accumulator, bounds: { start: string; end: string }[]): WeekFigures[] {
  const width = STATUS_CODE.FAILED + 1;
  return bounds.map(({ start, end }, week) => {
    const base = week * width;
    const onTime = acc.weekCounts[base + STATUS_CODE.HEALTHY]!;
    const late = acc.weekCounts[base + STATUS_CODE.DELIVERED_LATE]!;
    const missing = acc.weekCounts[base + STATUS_CODE.MISSING]!;
    const failed = acc.weekCounts[base + STATUS_CODE.FAILED]!;
    const deliveries = onTime + late + missing + failed;
    return { start, end, deliveries, onTime, late, missing, failed, onTimeRate: rate(onTime, deliveries) };
  });
}

/** Adds one dataset's deliveries to its group: one walk, oldest first (the arrays are newest first). */
function gather(acc: Accumulator, dataset: DatasetHistory, window: StatsWindow, weeks: number): void {
  const { deadlines, delivered, statuses } = dataset;
  const { from, to } = window;
  const width = STATUS_CODE.FAILED + 1;
  // The open FAILED episode's start (NaN: its start is unknown); null: none open.
  let failedSince: number | null = null;
  for (let i = statuses.length - 1; i >= 0; i -= 1) {
    const code = statuses[i]!;
    const deadline = deadlines[i]!;
    const at = delivered[i]!;
    if (code === STATUS_CODE.FAILED) {
      failedSince ??= Number.isNaN(at) ? deadline : at;
    } else if (code === STATUS_CODE.HEALTHY && failedSince !== null) {
      if (!Number.isNaN(failedSince) && at >= from && at < to)
        acc.recovered.push(Math.max(0, at - failedSince));
      failedSince = null;
    }
    // NaN deadlines fail both comparisons; IN_PROGRESS and unknown statuses wait.
    if (!(deadline >= from && deadline < to) || code < STATUS_CODE.HEALTHY || code > STATUS_CODE.FAILED)
      continue;
    acc.counts[code] = acc.counts[code]! + 1;
    // The newest week (index weeks − 1) holds the deadlines in [to − 7 d, to), and so on back.
    const week = weeks - Math.ceil((to - deadline) / WEEK_MS);
    const cell = week * width + code;
    acc.weekCounts[cell] = acc.weekCounts[cell]! + 1;
    if ((code === STATUS_CODE.HEALTHY || code === STATUS_CODE.DELIVERED_LATE) && !Number.isNaN(at))
      acc.lateness.push(Math.max(0, at - deadline));
  }
}

/** Worst first: lowest on-time rate, then most deliveries, then key; groups without deliveries last, by key. */
export function compareGroups(a: StatsGroup, b: StatsGroup): number {
  const aRate = a.figures.onTimeRate;
  const bRate = b.figures.onTimeRate;
  if (aRate === null || bRate === null) {
    if (aRate !== bRate) return aRate === null ? 1 : -1;
  } else if (aRate !== bRate) {
    return aRate - bRate;
  }
  if (a.figures.deliveries !== b.figures.deliveries) return b.figures.deliveries - a.figures.deliveries;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

export interface ReliabilityRequest {
  groupBy: StatsGroupBy;
  window: StatsWindow;
  /** Only the group of this key (its datasets alone are read); null: every group. */
  key?: string | null;
}

/**
 * Work done between two turns of the event loop when computing in slices: deliveries walked, values
 * sorted and groups finished (1,000 datasets of 100 deliveries; ~5 ms on the reference machine).
 */
export const STATS_SLICE_WORK = 100_000;

/**
 * The computation as steps: it yields after every STATS_SLICE_WORK of work, so a
 * caller can give the event loop a turn there (the history is an immutable snapshot: nothing moves
 * between steps). Each dataset's arrays are walked once.
 */
function* computeSteps(history: OrgHistory, request: ReliabilityRequest): Generator<void, ReliabilityStats> {
  const { groupBy, window } = request;
  const key = request.key ?? null;
  const weeks = weekCount(window.days);
  const groups = new Map<string, Accumulator>();
  const datasets =
    key !== null && groupBy === 'dataset'
      ? [history.byId.get(key)].filter((d): d is DatasetHistory => d !== undefined)
      : history.datasets;
  let work = 0;
  for (const dataset of datasets) {
    work += 1 + dataset.statuses.length;
    if (work >= STATS_SLICE_WORK) {
      work = 0;
      yield;
    }
    const groupKey = groupKeyOf(dataset, groupBy);
    if (key !== null && groupKey !== key) continue;
    let acc = groups.get(groupKey);
    if (acc === undefined) {
      acc = new Accumulator(groupKey, weeks);
      groups.set(groupKey, acc);
    }
    acc.datasets += 1;
    acc.name ??= groupNameOf(dataset, groupBy);
    if (groupBy === 'dataset') acc.supplier ??= { id: dataset.supplierId, name: dataset.supplierName };
    gather(acc, dataset, window, weeks);
  }
  const bounds = weekBounds(window);
  const out: StatsGroup[] = [];
  for (const acc of groups.values()) {
    // A group's figures sort its lateness and recovery times: large groups are most of the work.
    work += 100 + acc.lateness.length + acc.recovered.length;
    if (work >= STATS_SLICE_WORK) {
      work = 0;
      yield;
    }
    out.push({
      key: acc.key,
      name: acc.name,
      supplier: acc.supplier,
      datasets: acc.datasets,
      figures: figuresOf(acc),
      weeks: weeksOf(acc, bounds),
    });
  }
  out.sort(compareGroups);
  return {
    orgId: history.orgId,
    groupBy,
    days: window.days,
    from: new Date(window.from).toISOString(),
    to: new Date(window.to).toISOString(),
    groups: out,
  };
}

/** The org's statistics over the window, grouped, at once. */
export function reliabilityStats(history: OrgHistory, request: ReliabilityRequest): ReliabilityStats {
  const steps = computeSteps(history, request);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** The same, a slice at a time with `between` awaited between slices (no long event-loop stall at 10k). */
export async function reliabilityStatsInSlices(
  history: OrgHistory,
  request: ReliabilityRequest,
  between: () => Promise<void>,
): Promise<ReliabilityStats> {
  const steps = computeSteps(history, request);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await between();
  }
}
