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
import type { ReliabilityStats, StatsGroupBy } from '../../shared/reliability';
import { type HistoryBlock, type OrgHistory, STATUS_CODE } from './history';
import {
  SETTLED,
  type StatsTable,
  type StatsWindow,
  WEEK_MS,
  statsOf,
  tableBytes,
  weekCount,
  worstFirst,
} from './statsTable';

export { type StatsTable, type StatsWindow, statsOf, statsWindow, weekCount } from './statsTable';

/** The nearest-rank q-quantile of values sorted ascending (rank ⌈q·n⌉, at least 1); null when empty. */
export function nearestRank(sorted: ArrayLike<number>, q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}

/** The group key of dataset `k` of a block. */
export function groupKeyOf(block: HistoryBlock, k: number, groupBy: StatsGroupBy): string {
  if (groupBy === 'dataset') return block.ids[k]!;
  if (groupBy === 'supplier') return block.supplierIds[k] ?? '';
  return block.productNames[k] ?? '';
}

function groupNameOf(block: HistoryBlock, k: number, groupBy: StatsGroupBy): string | null {
  if (groupBy === 'dataset') return block.names[k]!;
  if (groupBy === 'supplier') return block.supplierNames[k]!;
  return block.productNames[k]!;
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

/** Counts per status (index = status code) with the lateness and recovery times of the group in hand. */
class Scratch {
  readonly counts = new Float64Array(STATUS_CODE.FAILED + 1);
  /** Per week (0 = oldest) and status code. */
  readonly weekCounts: Float64Array;
  lateness = new Values();
  recovered = new Values();

  constructor(weeks: number) {
    this.weekCounts = new Float64Array(weeks * (STATUS_CODE.FAILED + 1));
  }

  reset(): void {
    this.counts.fill(0);
    this.weekCounts.fill(0);
    this.lateness.length = 0;
    this.recovered.length = 0;
  }
}

/** Adds one dataset's deliveries to the group in hand: one walk, oldest first (the runs are newest first). */
function gather(s: Scratch, block: HistoryBlock, k: number, window: StatsWindow, weeks: number): void {
  const { deliveries } = block;
  const { statuses } = deliveries;
  const { from, to } = window;
  const width = STATUS_CODE.FAILED + 1;
  // The open FAILED episode's start (NaN: its start is unknown); null: none open.
  let failedSince: number | null = null;
  for (let i = deliveries.starts[k + 1]! - 1; i >= deliveries.starts[k]!; i -= 1) {
    const code = statuses[i]!;
    const deadline = deliveries.deadline(i);
    const at = deliveries.delivered(i);
    if (code === STATUS_CODE.FAILED) {
      failedSince ??= Number.isNaN(at) ? deadline : at;
    } else if (code === STATUS_CODE.HEALTHY && failedSince !== null) {
      if (!Number.isNaN(failedSince) && at >= from && at < to)
        s.recovered.push(Math.max(0, at - failedSince));
      failedSince = null;
    }
    // NaN deadlines fail both comparisons; IN_PROGRESS and unknown statuses wait.
    if (!(deadline >= from && deadline < to) || code < STATUS_CODE.HEALTHY || code > STATUS_CODE.FAILED)
      continue;
    s.counts[code] = s.counts[code]! + 1;
    // The newest week (index weeks − 1) holds the deadlines in [to − 7 d, to), and so on back.
    const week = weeks - Math.ceil((to - deadline) / WEEK_MS);
    const cell = week * width + code;
    s.weekCounts[cell] = s.weekCounts[cell]! + 1;
    if ((code === STATUS_CODE.HEALTHY || code === STATUS_CODE.DELIVERED_LATE) && !Number.isNaN(at))
      s.lateness.push(Math.max(0, at - deadline));
  }
}

/** Writes the group in hand into row `g` of the table. */
function finish(s: Scratch, table: StatsTable, g: number): void {
  const width = STATUS_CODE.FAILED + 1;
  SETTLED.forEach((code, c) => (table.counts[g * 4 + c] = s.counts[code]!));
  for (let week = 0; week < table.weeks; week += 1)
    SETTLED.forEach(
      (code, c) => (table.weekCounts[(g * table.weeks + week) * 4 + c] = s.weekCounts[week * width + code]!),
    );
  const lateness = s.lateness.sorted();
  const recovered = s.recovered.sorted();
  table.recoveries[g] = recovered.length;
  table.times[g * 3] = nearestRank(lateness, 0.5) ?? NaN;
  table.times[g * 3 + 1] = nearestRank(lateness, 0.9) ?? NaN;
  table.times[g * 3 + 2] = nearestRank(recovered, 0.5) ?? NaN;
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
/** Datasets put in their groups between two turns (a map look-up each, no delivery walked). */
const GROUPING_SLICE = 25_000;

/** Each considered dataset's group, in the history's order; the groups in the order first seen. */
interface Grouping {
  keys: string[];
  names: (string | null)[];
  /** Each group's first dataset (its supplier, per dataset) and its member count. */
  firsts: number[];
  sizes: number[];
  /** Per ordinal: its group (-1: not considered) and its block. */
  groupOf: Int32Array;
  blockOf: Uint32Array;
}

function* group(history: OrgHistory, request: ReliabilityRequest): Generator<void, Grouping> {
  const { groupBy } = request;
  const key = request.key ?? null;
  const index = new Map<string, number>();
  const grouping: Grouping = {
    keys: [],
    names: [],
    firsts: [],
    sizes: [],
    groupOf: new Int32Array(history.size).fill(-1),
    blockOf: new Uint32Array(history.size),
  };
  const consider = (b: number, k: number, ordinal: number) => {
    const block = history.blocks[b]!;
    const groupKey = groupKeyOf(block, k, groupBy);
    if (key !== null && groupKey !== key) return;
    let g = index.get(groupKey);
    if (g === undefined) {
      g = grouping.keys.length;
      index.set(groupKey, g);
      grouping.keys.push(groupKey);
      grouping.names.push(null);
      grouping.firsts.push(ordinal);
      grouping.sizes.push(0);
    }
    grouping.sizes[g] = grouping.sizes[g]! + 1;
    // The first name seen among the group's datasets.
    grouping.names[g] ??= groupNameOf(block, k, groupBy);
    grouping.groupOf[ordinal] = g;
    grouping.blockOf[ordinal] = b;
  };
  if (key !== null && groupBy === 'dataset') {
    // One dataset's statistics (the dataset view's chart): its own deliveries alone are read.
    const ordinal = history.indexOf(key);
    if (ordinal >= 0) {
      const b = history.blockOf(ordinal);
      consider(b, ordinal - history.firstOf(b), ordinal);
    }
    return grouping;
  }
  let ordinal = 0;
  for (let b = 0; b < history.blocks.length; b += 1) {
    const block = history.blocks[b]!;
    for (let k = 0; k < block.size; k += 1, ordinal += 1) {
      if (ordinal > 0 && ordinal % GROUPING_SLICE === 0) yield;
      consider(b, k, ordinal);
    }
  }
  return grouping;
}

/**
 * The computation as steps: it yields after every STATS_SLICE_WORK of work, so a caller can give the
 * event loop a turn there (the history is an immutable snapshot: nothing moves between steps). The
 * datasets are put in their groups, then walked group by group, each dataset's deliveries once: a
 * group's figures are finished as soon as its last dataset is walked, so only one group's lateness
 * and recovery times are held at a time.
 */
function* computeSteps(history: OrgHistory, request: ReliabilityRequest): Generator<void, StatsTable> {
  const { groupBy, window } = request;
  const weeks = weekCount(window.days);
  const grouping = yield* group(history, request);
  const count = grouping.keys.length;
  const perDataset = groupBy === 'dataset';
  const table: StatsTable = {
    orgId: history.orgId,
    groupBy,
    window,
    weeks,
    count,
    order: new Uint32Array(0),
    keys: grouping.keys,
    names: grouping.names,
    supplierIds: perDataset ? [] : null,
    supplierNames: perDataset ? [] : null,
    datasets: Uint32Array.from(grouping.sizes),
    counts: new Uint32Array(count * 4),
    recoveries: new Uint32Array(count),
    times: new Float64Array(count * 3),
    weekCounts: new Uint32Array(count * weeks * 4),
    bytes: 0,
  };
  // The members of each group, together, in the history's order.
  const starts = new Uint32Array(count + 1);
  for (let g = 0; g < count; g += 1) starts[g + 1] = starts[g]! + grouping.sizes[g]!;
  const members = new Uint32Array(starts[count]!);
  const filled = starts.slice(0, count);
  grouping.groupOf.forEach((g, ordinal) => {
    if (g >= 0) members[filled[g]!++] = ordinal;
  });
  const scratch = new Scratch(weeks);
  let work = 0;
  for (let g = 0; g < count; g += 1) {
    scratch.reset();
    for (let m = starts[g]!; m < starts[g + 1]!; m += 1) {
      const ordinal = members[m]!;
      const b = grouping.blockOf[ordinal]!;
      const block = history.blocks[b]!;
      const k = ordinal - history.firstOf(b);
      work += 1 + block.deliveries.starts[k + 1]! - block.deliveries.starts[k]!;
      if (work >= STATS_SLICE_WORK) {
        work = 0;
        yield;
      }
      if (perDataset && m === starts[g]) {
        table.supplierIds!.push(block.supplierIds[k]!);
        table.supplierNames!.push(block.supplierNames[k]!);
      }
      gather(scratch, block, k, window, weeks);
    }
    // A group's figures sort its lateness and recovery times: large groups are most of the work.
    work += 100 + scratch.lateness.length + scratch.recovered.length;
    if (work >= STATS_SLICE_WORK) {
      work = 0;
      yield;
    }
    finish(scratch, table, g);
  }
  table.order = worstFirst(table);
  table.bytes = tableBytes(table);
  return table;
}

/** The org's statistics over the window, in columns, at once. */
export function reliabilityTable(history: OrgHistory, request: ReliabilityRequest): StatsTable {
  const steps = computeSteps(history, request);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** The org's statistics over the window, grouped, at once. */
export function reliabilityStats(history: OrgHistory, request: ReliabilityRequest): ReliabilityStats {
  return statsOf(reliabilityTable(history, request));
}

/** The table, a slice at a time with `between` awaited between slices (no long event-loop stall). */
export async function reliabilityTableInSlices(
  history: OrgHistory,
  request: ReliabilityRequest,
  between: () => Promise<void>,
): Promise<StatsTable> {
  const steps = computeSteps(history, request);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await between();
  }
}
