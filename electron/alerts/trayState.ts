/**
 * The tray's state (docs/architecture.md#the-tray, docs/architecture.md#the-on-call-layer): the worst latest status among the synced orgs' datasets that are
 * not snoozed — red only for a FAILED one nobody acknowledged — their counts, the FAILED ones for the
 * menu (unacknowledged first, acknowledged ones marked), and whether the data can be trusted. Stale data
 * turns the icon grey whatever the statuses say: a green icon over data an hour old would be a lie; the
 * tooltip still counts what the data showed. While it is stale, the deadlines that passed since the last
 * sync (overdue, unverified: docs/architecture.md#deadlines) are said in the tooltip and the menu — counted by the engine's
 * deadline clock and handed in, since this layer knows no schedules.
 */
import { type DeliveryStatus, DELIVERY_STATUSES, isDeliveryStatus } from '../../shared/status';
import type { Settings } from '../../shared/settings';
import { type Freshness, type SourceState, freshness } from '../../shared/sync';
import { relativeTime } from '../../shared/time';
import { overdueText } from '../../shared/upcoming';
import {
  type TrayFailed,
  acknowledgedCount,
  acknowledgedFailures,
  datasetStatus,
  failedDatasets,
  statusCounts,
} from '../query/trayCounts';
import type { Store } from '../store/database';
import { listSnoozes } from '../store/tables/snoozes';
import { isPaused } from './quietHours';

export type { TrayFailed };

/** Icon colours: red, amber, green, grey. */
export type TrayLevel = 'failed' | 'warning' | 'healthy' | 'stale';

/** FAILED datasets the tray menu lists by name; the rest are one "more" item. */
export const TRAY_FAILED_LIMIT = 10;

/** The overdue (unverified) deadlines over every org, and the org with the most of them (the menu opens it). */
export interface TrayOverdue {
  deadlines: number;
  datasets: number;
  orgId: string | null;
}

export const NO_OVERDUE: TrayOverdue = { deadlines: 0, datasets: 0, orgId: null };

export interface TrayState {
  level: TrayLevel;
  /** Datasets by latest status, snoozed ones left out; `other`: any other or no status. */
  counts: Record<DeliveryStatus, number> & { other: number };
  snoozed: number;
  /**
   * The first FAILED datasets (at most TRAY_FAILED_LIMIT): those nobody acknowledged by name, then the
   * acknowledged ones; how many there are, and how many of them are acknowledged.
   */
  failed: TrayFailed[];
  failedTotal: number;
  failedAcknowledged: number;
  /** The least trustworthy source's freshness, and the oldest last successful sync among them. */
  freshness: Freshness;
  /** Why the data cannot be trusted now ("sync failing: …", "data is stale"), or null. */
  distrust: string | null;
  syncedAt: string | null;
  /** The disk refuses the database's writes: committed changes wait in memory (the window says more). */
  diskProblem: boolean;
  /** When notifications are paused now: until when ("forever" until resumed). */
  pausedUntil: string | null;
  /** The org the "FAILED" list opens (the first source's). */
  orgId: string | null;
  /** Deadlines passed since the last successful sync while the data is stale; never a remote status. */
  overdue: TrayOverdue;
  tooltip: string;
}

const FRESHNESS_ORDER: Freshness[] = ['fresh', 'stale', 'failing'];

export function computeTrayState(
  store: Store,
  sources: readonly SourceState[],
  settings: Settings,
  now: Date,
  overdue: TrayOverdue = NO_OVERDUE,
): TrayState {
  const orgs = [...new Set(sources.map((source) => source.orgId))];
  const counts = { FAILED: 0, MISSING: 0, DELIVERED_LATE: 0, HEALTHY: 0, other: 0 };
  const snoozedIds = new Set(
    orgs.flatMap((orgId) =>
      listSnoozes(store, orgId, now).map((snooze) => `${orgId}\u0000${snooze.datasetId}`),
    ),
  );
  for (const { status, count } of statusCounts(store, orgs))
    counts[status !== null && isDeliveryStatus(status) ? status : 'other'] += count;
  let snoozed = 0;
  for (const key of snoozedIds) {
    const [orgId, datasetId] = key.split('\u0000');
    const status = datasetStatus(store, orgId!, datasetId!);
    if (status === undefined) continue;
    snoozed += 1;
    counts[status !== null && isDeliveryStatus(status) ? status : 'other'] -= 1;
  }
  const awake = (dataset: TrayFailed) => !snoozedIds.has(`${dataset.orgId}\u0000${dataset.datasetId}`);
  // The menu's rows only (LIMIT), and a count: not every acknowledged failure at every tick.
  const unacknowledged = failedDatasets(store, orgs, TRAY_FAILED_LIMIT + snoozedIds.size).filter(awake);
  const room = TRAY_FAILED_LIMIT - Math.min(unacknowledged.length, TRAY_FAILED_LIMIT);
  const failed = [
    ...unacknowledged,
    ...acknowledgedFailures(store, orgs, room > 0 ? room + snoozedIds.size : 0).filter(awake),
  ].slice(0, TRAY_FAILED_LIMIT);
  const acknowledgedTotal = acknowledgedCount(
    store,
    orgs,
    [...snoozedIds].map((key) => {
      const [orgId, datasetId] = key.split('\u0000');
      return { orgId: orgId!, datasetId: datasetId! };
    }),
  );
  const fresh =
    sources.length === 0
      ? 'stale'
      : sources
          .map((source) => freshness(source, now))
          .reduce((worst, next) =>
            FRESHNESS_ORDER.indexOf(next) > FRESHNESS_ORDER.indexOf(worst) ? next : worst,
          );
  // The oldest source's last success is the data's age; one never synced makes it "never".
  const successes = sources.map((source) => source.lastSuccessAt);
  const syncedAt = successes.includes(null) ? null : ((successes as string[]).sort()[0] ?? null);
  const failing = sources.find((source) => freshness(source, now) === 'failing');
  const distrust =
    fresh === 'failing'
      ? failing?.lastError
        ? `sync failing: ${failing.lastError}`
        : 'sync stopped'
      : fresh === 'stale'
        ? 'data is stale'
        : null;
  const level: TrayLevel =
    fresh !== 'fresh'
      ? 'stale'
      : counts.FAILED > acknowledgedTotal
        ? 'failed'
        : counts.MISSING + counts.DELIVERED_LATE > 0
          ? 'warning'
          : 'healthy';
  const pausedUntil = isPaused(settings.notifications.pausedUntil, now)
    ? settings.notifications.pausedUntil
    : null;
  const state = {
    level,
    counts,
    snoozed,
    failed,
    failedTotal: counts.FAILED,
    failedAcknowledged: acknowledgedTotal,
    freshness: fresh,
    distrust,
    syncedAt,
    diskProblem: (store.persistence?.problem ?? null) !== null,
    pausedUntil,
    orgId: orgs[0] ?? null,
    overdue,
  };
  return { ...state, tooltip: trayTooltip(state, sources, now) };
}

export const TOOLTIP_LIMIT = 127;

/** The tooltip's and the menu's words for a disk that refuses the database's writes. */
export const DISK_PROBLEM_TEXT = 'changes not saved to disk';

const COUNT_WORDS: Record<DeliveryStatus, string> = {
  FAILED: 'FAILED',
  MISSING: 'MISSING',
  DELIVERED_LATE: 'late',
  HEALTHY: 'healthy',
};

/** "Dataset Health · 3 FAILED, 2 MISSING, 490 healthy · synced 2 minutes ago" (and what is wrong). */
export function trayTooltip(
  state: Omit<TrayState, 'tooltip'>,
  sources: readonly SourceState[],
  now: Date,
): string {
  const disk = state.diskProblem ? [DISK_PROBLEM_TEXT] : [];
  if (sources.length === 0) return ['Dataset Health', 'no sources to sync', ...disk].join(' · ');
  const counts = DELIVERY_STATUSES.filter((status) => state.counts[status] > 0).map(
    (status) =>
      `${state.counts[status].toLocaleString('en-US')} ${COUNT_WORDS[status]}` +
      (status === 'FAILED' && state.failedAcknowledged > 0
        ? ` (${state.failedAcknowledged.toLocaleString('en-US')} acknowledged)`
        : ''),
  );
  const lines = [
    'Dataset Health',
    counts.length > 0 ? counts.join(', ') : 'no datasets yet',
    state.syncedAt === null ? 'never synced' : `synced ${relativeTime(state.syncedAt, now)}`,
  ];
  // Before the rest: the tooltip is cut at 127 characters, and these ask for action. The overdue count
  // comes before "data is stale" (it says so too: "since the last sync"), so that is cut first.
  lines.push(...disk);
  if (state.overdue.deadlines > 0) lines.push(overdueText(state.overdue.deadlines));
  if (state.snoozed > 0) lines.push(`${state.snoozed} snoozed`);
  if (state.distrust !== null) lines.push(state.distrust);
  if (state.pausedUntil !== null)
    lines.push(
      state.pausedUntil === 'forever'
        ? 'notifications paused'
        : `notifications paused (resume ${relativeTime(state.pausedUntil, now)})`,
    );
  const text = lines.join(' · ');
  // Windows cuts tray tooltips at 127 characters: end with an ellipsis rather than mid-word garbage.
  return text.length <= TOOLTIP_LIMIT ? text : `${text.slice(0, TOOLTIP_LIMIT - 1)}…`;
}
