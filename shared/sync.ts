/**
 * What the sync tells the rest of the app (docs/architecture.md#sync): the state of each source and the status
 * transitions of each cycle. Shared by the engine, the alerts and the renderer.
 */

/** idle: waiting for the next cycle; offline: the remote cannot be reached; error: it answered wrongly. */
export type SourcePhase = 'idle' | 'syncing' | 'error' | 'offline';

export type SyncKind = 'crawl' | 'poll';

export interface SyncCounts {
  /** Records the remote sent (pages walked, or polled). */
  received: number;
  /** Records written because they changed. */
  written: number;
  /** Datasets removed because a complete crawl no longer listed them (or a direct fetch said 404). */
  removed: number;
  /** Records without a datasetId, skipped. */
  skipped: number;
  /** Bad values turned into null. */
  invalidValues: number;
  /** Tasks records fetched for FAILED deliveries, and fetches that failed (read through later). */
  tasksFetched: number;
  tasksFailed: number;
}

/** A dataset's latest delivery status changed, or it FAILED again with a new delivery. */
export interface StatusTransition {
  datasetId: string;
  /** null: the dataset is new to this mirror. */
  from: string | null;
  /** null: the dataset is gone from the remote. */
  to: string | null;
  /** The delivery the new status is about (for FAILED, the failed delivery), or null. */
  deliveryId: string | null;
}

export interface SourceState {
  sourceId: string;
  orgId: string;
  name: string;
  phase: SourcePhase;
  /** What runs now (when syncing), e.g. "crawl: page 3 (2,000 datasets)". */
  activity: string | null;
  lastSuccessAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  /** Duration of the last finished cycle, ms. */
  lastDurationMs: number | null;
  lastCounts: SyncCounts | null;
  nextRunAt: string | null;
  /** Stopped until the settings change (an API key the remote rejects). */
  stopped: boolean;
  /** The fast poll's interval: data is stale after three of them without a successful cycle. */
  pollIntervalMs: number;
}

/** One finished sync cycle of a source, as alerts and windows hear of it. */
export interface CycleEvent {
  sourceId: string;
  orgId: string;
  kind: SyncKind;
  outcome: 'ok' | 'failed';
  /** The org's first complete crawl (alerts give one summary). */
  firstSync: boolean;
  transitions: StatusTransition[];
  counts: SyncCounts;
  error: string | null;
  startedAt: string;
  endedAt: string;
  /**
   * When the cycle's changes were written (its transitions' timeline entries carry this time): the
   * moment the rules judge them at, live as in a replay (docs/decisions.md "Rule notifications: one
   * evaluator"). Absent: the cycle wrote nothing.
   */
  learnedAt?: string;
}

export const EMPTY_COUNTS: SyncCounts = {
  received: 0,
  written: 0,
  removed: 0,
  skipped: 0,
  invalidValues: 0,
  tasksFetched: 0,
  tasksFailed: 0,
};

/** Polls without a successful cycle after which a source's data counts as stale (docs/architecture.md#notifications). */
export const STALE_AFTER_POLLS = 3;

export type Freshness = 'fresh' | 'stale' | 'failing';

/**
 * The one stale rule (docs/architecture.md#notifications): no successful cycle for STALE_AFTER_POLLS poll intervals, counted
 * from the last success — or from `neverSince` when there was none (default: stale at once).
 */
export function pastStaleAge(state: SourceState, now: Date, neverSince = -Infinity): boolean {
  const last = state.lastSuccessAt === null ? neverSince : Date.parse(state.lastSuccessAt);
  return now.getTime() - last > STALE_AFTER_POLLS * state.pollIntervalMs;
}

/**
 * How far a source's data can be trusted at `now`: failing when its last cycle failed or it is stopped,
 * stale when no cycle succeeded for three poll intervals (or never), else fresh. The window's banner and
 * the tray icon both read it.
 */
export function freshness(state: SourceState, now: Date): Freshness {
  if (state.stopped || state.phase === 'error' || state.phase === 'offline') return 'failing';
  return pastStaleAge(state, now) ? 'stale' : 'fresh';
}
