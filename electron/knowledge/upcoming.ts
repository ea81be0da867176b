/**
 * Upcoming deadlines and overdue (unverified) datasets (docs/architecture.md#deadlines), from the org's history in
 * memory and the deadline clock: no SQL and no cron evaluation per dataset, so the answer for a 10k org
 * is a walk over its datasets.
 */
import { type SourceState, pastStaleAge } from '../../shared/sync';
import {
  MAX_UPCOMING_DEADLINES,
  type OverdueDataset,
  type OverdueSummary,
  type DeliveryHabits,
  type UpcomingDeadline,
  type UpcomingDeadlines,
} from '../../shared/upcoming';
import type { DeadlineConfig } from '../../shared/schemas';
import { type DeadlineClock, scheduleKey } from './deadlineClock';
import { habitsOf, isAtRisk } from './habits';
import type { HistoryBlock, OrgHistory } from './history';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Habits per block, made when first asked: a block never changes, so they hold as long as it is held
 * (a refresh that changes a dataset builds its block anew, without them).
 */
const habitsCache = new WeakMap<HistoryBlock, (DeliveryHabits | undefined)[]>();
/** Which of a block's datasets are at risk (1), made for the whole block at once: the handoff asks for all. */
const riskCache = new WeakMap<HistoryBlock, Uint8Array>();

/** The habits of dataset `k` of `block`. */
export function habitsIn(block: HistoryBlock, k: number): DeliveryHabits {
  let held = habitsCache.get(block);
  if (held === undefined) habitsCache.set(block, (held = new Array<DeliveryHabits | undefined>(block.size)));
  const { deliveries } = block;
  return (held[k] ??= habitsOf(deliveries, deliveries.starts[k]!, deliveries.starts[k + 1]!));
}

function atRiskIn(block: HistoryBlock, k: number): boolean {
  let flags = riskCache.get(block);
  if (flags === undefined) {
    flags = new Uint8Array(block.size);
    const { deliveries } = block;
    for (let j = 0; j < block.size; j += 1)
      flags[j] = isAtRisk(deliveries, deliveries.starts[j]!, deliveries.starts[j + 1]!) ? 1 : 0;
    riskCache.set(block, flags);
  }
  return flags[k] === 1;
}

/** One schedule's (deadline, dataset) pairs, soonest first, then by dataset id: a stream to merge. */
class Pairs {
  /** The next pair: ahead[at] with the dataset of place `place` in `ids`. */
  at = 0;
  place = 0;

  constructor(
    readonly ahead: readonly number[],
    readonly ordinals: readonly number[],
    readonly ids: readonly string[],
    readonly timeZone: string,
  ) {}

  /** Moves to the next pair; false when there is none. */
  next(): boolean {
    this.place += 1;
    if (this.place === this.ids.length) [this.at, this.place] = [this.at + 1, 0];
    return this.at < this.ahead.length;
  }
}

/** Soonest first, then by dataset id (a dataset has one schedule: no two pairs tie). */
const sooner = (a: Pairs, b: Pairs): boolean => {
  const by = a.ahead[a.at]! - b.ahead[b.at]!;
  return by < 0 || (by === 0 && a.ids[a.place]! < b.ids[b.place]!);
};

/** The soonest `cap` pairs of all the schedules', in order: a merge of their streams (a binary heap). */
function soonest(streams: Pairs[], cap: number): { at: number; ordinal: number; timeZone: string }[] {
  const heap = streams.slice();
  const down = (from: number) => {
    for (let i = from; ;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < heap.length && sooner(heap[left]!, heap[least]!)) least = left;
      if (right < heap.length && sooner(heap[right]!, heap[least]!)) least = right;
      if (least === i) return;
      [heap[i], heap[least]] = [heap[least]!, heap[i]!];
      i = least;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i -= 1) down(i);
  const found: { at: number; ordinal: number; timeZone: string }[] = [];
  while (heap.length > 0 && found.length < cap) {
    const first = heap[0]!;
    found.push({
      at: first.ahead[first.at]!,
      ordinal: first.ordinals[first.place]!,
      timeZone: first.timeZone,
    });
    if (!first.next()) {
      // This schedule has no pair left: the last stream takes its place.
      heap[0] = heap[heap.length - 1]!;
      heap.pop();
    }
    down(0);
  }
  return found;
}

/**
 * The org's deadlines in (now, now + hours], soonest first (then by dataset id), with habits; with
 * `onlyAtRisk`, those of at-risk datasets alone (the handoff: the cap applies after the choice). At
 * most MAX_UPCOMING_DEADLINES are built, whatever the schedules: 10k datasets due every minute for a
 * week would otherwise be 10⁸ rows in memory for an answer of 10,000. Each schedule's pairs come in
 * order already (its deadlines ascending, its datasets in the history's id order), so the answer is a
 * merge of them that stops at the cap: no pair past it is made.
 */
export function upcomingDeadlines(
  history: OrgHistory,
  clock: DeadlineClock,
  now: number,
  hours: number,
  options: { onlyAtRisk?: boolean } = {},
): UpcomingDeadlines {
  const cap = MAX_UPCOMING_DEADLINES;
  const span = hours * 3_600_000;
  // Datasets share schedules: each schedule's deadlines are asked of the clock once.
  const schedules = new Map<string, number>();
  const configs: DeadlineConfig[] = [];
  const scheduleOf = new Int32Array(history.size).fill(-1);
  let ordinal = 0;
  for (const block of history.blocks)
    for (let k = 0; k < block.size; k += 1, ordinal += 1) {
      if (options.onlyAtRisk && !atRiskIn(block, k)) continue;
      const config = block.configs[k]!;
      const key = scheduleKey(config);
      let s = schedules.get(key);
      if (s === undefined) {
        schedules.set(key, (s = configs.length));
        configs.push(config);
      }
      scheduleOf[ordinal] = s;
    }
  const sharing = configs.map(() => ({ ordinals: [] as number[], ids: [] as string[] }));
  const byId = history.idOrder();
  byId.ordinals.forEach((each, place) => {
    const s = scheduleOf[each]!;
    if (s < 0) return;
    sharing[s]!.ordinals.push(each);
    sharing[s]!.ids.push(byId.ids[place]!);
  });
  const streams: Pairs[] = [];
  let total = 0;
  let invalidSchedules = 0;
  configs.forEach((config, s) => {
    const { ordinals, ids } = sharing[s]!;
    const { problem, timeZone } = clock.at(config, now);
    if (problem !== null) {
      invalidSchedules += ordinals.length;
      return;
    }
    const ahead = clock.ahead(config, now, span, cap);
    total += ahead.length * ordinals.length;
    if (ahead.length > 0) streams.push(new Pairs(ahead, ordinals, ids, timeZone));
  });
  const found = soonest(streams, cap);
  const deadlines: UpcomingDeadline[] = found.map(({ at, ordinal, timeZone }) => {
    const b = history.blockOf(ordinal);
    const block = history.blocks[b]!;
    const k = ordinal - history.firstOf(b);
    return {
      datasetId: block.ids[k]!,
      datasetName: block.names[k]!,
      supplierId: block.supplierIds[k]!,
      supplierName: block.supplierNames[k]!,
      dataProductName: block.productNames[k]!,
      deadline: iso(at),
      timeZone,
      status: block.datasetStatuses[k]!,
      habits: habitsIn(block, k),
    };
  });
  return {
    orgId: history.orgId,
    hours,
    from: iso(now),
    to: iso(now + span),
    deadlines,
    total,
    truncated: total > deadlines.length,
    invalidSchedules,
  };
}

/**
 * Whether the org's data is stale: it has sources and none synced successfully within STALE_AFTER_POLLS
 * of its poll intervals (never synced counts as stale). The rule of "lost contact" (alerts/contact.ts):
 * a single failed cycle, or a source stopped a minute ago, is no loss yet — the next cycle may succeed —
 * so no deadline is called overdue before the contact notice that covers it could be made.
 */
export function orgFreshness(
  orgId: string,
  states: readonly SourceState[],
  now: Date,
): { stale: boolean; lastSuccessAt: string | null } {
  const own = states.filter((state) => state.orgId === orgId);
  const lastSuccessAt = own.reduce<string | null>(
    (latest, state) =>
      state.lastSuccessAt !== null && (latest === null || state.lastSuccessAt > latest)
        ? state.lastSuccessAt
        : latest,
    null,
  );
  const stale = own.length > 0 && own.every((state) => pastStaleAge(state, now));
  return { stale, lastSuccessAt };
}

/** Deadlines counted per dataset at most (a schedule every minute for a day offline would be 1,440). */
export const MAX_COUNTED_PER_DATASET = 1_000;

/**
 * While the org's data is stale, each dataset with deadlines after both the last successful sync and
 * its newest settled delivery: what the remote would say of them is not known here yet. Never synced:
 * nothing to count from. Cleared by the next successful sync (the org is fresh again).
 */
export function overdueDatasets(
  history: OrgHistory,
  clock: DeadlineClock,
  now: number,
  contact: { stale: boolean; lastSuccessAt: string | null },
): OverdueSummary {
  const summary: OverdueSummary = {
    orgId: history.orgId,
    stale: contact.stale,
    lastSuccessAt: contact.lastSuccessAt,
    datasets: [],
    deadlines: 0,
  };
  if (!contact.stale || contact.lastSuccessAt === null) return summary;
  const lastSuccess = Date.parse(contact.lastSuccessAt);
  const counted = new Map<string, number[]>();
  for (const block of history.blocks)
    for (let k = 0; k < block.size; k += 1) {
      const config = block.configs[k]!;
      const schedule = clock.at(config, now);
      const latestSettled = block.latestSettled[k]!;
      const since = Number.isNaN(latestSettled) ? lastSuccess : Math.max(lastSuccess, latestSettled);
      if (schedule.problem !== null || schedule.previous === null || schedule.previous <= since) continue;
      // Datasets share schedules and mostly the same `since`: each pair is evaluated once.
      const key = `${since}|${scheduleKey(config)}`;
      let passed = counted.get(key);
      if (passed === undefined)
        counted.set(key, (passed = clock.between(config, since, now, MAX_COUNTED_PER_DATASET)));
      if (passed.length === 0) continue;
      const entry: OverdueDataset = {
        datasetId: block.ids[k]!,
        datasetName: block.names[k]!,
        deadlines: passed.length,
        since: iso(passed[0]!),
      };
      summary.datasets.push(entry);
      summary.deadlines += entry.deadlines;
    }
  return summary;
}
