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
import { type DeadlineClock, scheduleKey } from './deadlineClock';
import { habitsOf } from './habits';
import type { DatasetHistory, OrgHistory } from './history';

const iso = (ms: number) => new Date(ms).toISOString();

/** Habits per history read: a dataset's deliveries array is kept until its record changes. */
const habitsCache = new WeakMap<Uint8Array, DeliveryHabits>();

function habitsOfDataset(dataset: DatasetHistory): DeliveryHabits {
  let habits = habitsCache.get(dataset.statuses);
  if (habits === undefined) habitsCache.set(dataset.statuses, (habits = habitsOf(dataset)));
  return habits;
}

type Found = { at: number; dataset: DatasetHistory; timeZone: string };
const soonestFirst = (a: Found, b: Found) =>
  a.at - b.at || (a.dataset.datasetId < b.dataset.datasetId ? -1 : 1);

/**
 * The org's deadlines in (now, now + hours], soonest first (then by dataset id), with habits; with
 * `onlyAtRisk`, those of at-risk datasets alone (the handoff: the cap applies after the choice). At
 * most MAX_UPCOMING_DEADLINES are built, whatever the schedules: 10k datasets due every minute for a
 * week would otherwise be 10⁸ rows in memory for an answer of 10,000.
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
  const bySchedule = new Map<string, DatasetHistory[]>();
  for (const dataset of history.datasets) {
    if (options.onlyAtRisk && !habitsOfDataset(dataset).atRisk) continue;
    const key = scheduleKey(dataset.config);
    const sharing = bySchedule.get(key);
    if (sharing === undefined) bySchedule.set(key, [dataset]);
    else sharing.push(dataset);
  }
  let found: Found[] = [];
  let total = 0;
  let invalidSchedules = 0;
  for (const sharing of bySchedule.values()) {
    const config = sharing[0]!.config;
    const { problem, timeZone } = clock.at(config, now);
    if (problem !== null) {
      invalidSchedules += sharing.length;
      continue;
    }
    const ahead = clock.ahead(config, now, span, cap);
    total += ahead.length * sharing.length;
    // This schedule's soonest `cap` (deadline, dataset) pairs are all it can add to the answer.
    sharing.sort((a, b) => (a.datasetId < b.datasetId ? -1 : 1));
    let added = 0;
    for (const at of ahead) {
      for (const dataset of sharing) {
        found.push({ at, dataset, timeZone });
        if (++added === cap) break;
      }
      if (added === cap) break;
    }
    // Keep what is held bounded: past twice the cap, only the soonest `cap` can still be listed.
    if (found.length > 2 * cap) found = found.sort(soonestFirst).slice(0, cap);
  }
  found.sort(soonestFirst);
  const deadlines: UpcomingDeadline[] = found.slice(0, cap).map(({ at, dataset, timeZone }) => ({
    datasetId: dataset.datasetId,
    datasetName: dataset.name,
    supplierId: dataset.supplierId,
    supplierName: dataset.supplierName,
    dataProductName: dataset.dataProductName,
    deadline: iso(at),
    timeZone,
    status: dataset.status,
    habits: habitsOfDataset(dataset),
  }));
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
  for (const dataset of history.datasets) {
    const schedule = clock.at(dataset.config, now);
    const since = Number.isNaN(dataset.latestSettledDeadline)
      ? lastSuccess
      : Math.max(lastSuccess, dataset.latestSettledDeadline);
    if (schedule.problem !== null || schedule.previous === null || schedule.previous <= since) continue;
    // Datasets share schedules and mostly the same `since`: each pair is evaluated once.
    const key = `${since}|${scheduleKey(dataset.config)}`;
    let passed = counted.get(key);
    if (passed === undefined)
      counted.set(key, (passed = clock.between(dataset.config, since, now, MAX_COUNTED_PER_DATASET)));
    if (passed.length === 0) continue;
    const entry: OverdueDataset = {
      datasetId: dataset.datasetId,
      datasetName: dataset.name,
      deadlines: passed.length,
      since: iso(passed[0]!),
    };
    summary.datasets.push(entry);
    summary.deadlines += entry.deadlines;
  }
  return summary;
}
