/**
 * The alerts engine (DESIGN.md §5): after every sync cycle it decides what to announce and keeps the
 * tray's state. Plain Node: the app turns announcements into notifications, `serve` into log lines and
 * an optional hook; both read the same tray state.
 *
 * Rules, in order, for the FAILED deliveries of an org never announced before:
 * 1. a dataset with an active snooze: silenced (remembered, never announced);
 * 2. notifications paused: silenced;
 * 3. quiet hours: held, then one summary per org when they end;
 * 4. the org's first sync: one summary ("12 datasets are FAILED");
 * 5. more than three at once: one summary opening the FAILED list;
 * 6. otherwise one notification each, naming the dataset and the failed stage's shortCode/message.
 * Every decision is remembered before it is announced: a delivery is announced at most once, ever.
 */
import type { Settings } from '../../shared/settings';
import type { CycleEvent, SourceState } from '../../shared/sync';
import { failedTasks } from '../../shared/failures';
import type { TasksRecord } from '../../shared/schemas';
import type { Store } from '../store/database';
import { heldFailures, remember, unannouncedFailures } from '../store/announcements';
import { listSnoozes } from '../store/snoozes';
import { datasetName } from '../query/dataset';
import { getDeliveryTasks } from '../query/tasks';
import { isPaused, isQuiet } from './quietHours';
import { failedText, recoveredText, summaryText } from './text';
import { type TrayState, computeTrayState } from './trayState';
import type { Announcement, FailedDataset, FailureReason } from './types';

/** More new failures than this in one cycle make one summary. */
export const SUMMARY_THRESHOLD = 3;
/** How often held failures and the tray's "synced N min ago" are looked at again. */
export const TICK_MS = 30_000;
/** Source state changes (progress every page) are gathered for this long before the tray is redrawn. */
const STATE_SETTLE_MS = 500;

const RECOVERED_FROM = new Set(['FAILED', 'MISSING']);
const RECOVERED_TO = new Set(['HEALTHY', 'DELIVERED_LATE']);

export interface AlertTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface SyncEvents {
  onCycle(listener: (event: CycleEvent) => void): () => void;
  onState(listener: (state: SourceState) => void): () => void;
  states(): SourceState[];
}

export interface AlertsOptions {
  store: Store;
  sync: SyncEvents;
  settings: () => Settings;
  now: () => Date;
  /** The user's IANA zone, for quiet hours (default: the system's). */
  timeZone?: string;
  timers?: AlertTimers;
  /** Where a failed evaluation is reported (it never stops the alerts). */
  onError?: (error: unknown) => void;
}

type Listener<T> = (value: T) => void;

const realTimers: AlertTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class AlertsEngine {
  private readonly announcementListeners = new Set<Listener<Announcement>>();
  private readonly trayListeners = new Set<Listener<TrayState>>();
  private readonly timers: AlertTimers;
  private readonly timeZone: string;
  private queue: Promise<unknown> = Promise.resolve();
  private tray: TrayState | undefined;
  private trayKey = '';
  private unsubscribe: (() => void)[] = [];
  private tickTimer: unknown;
  private settleTimer: unknown;
  private running = false;

  constructor(private readonly options: AlertsOptions) {
    this.timers = options.timers ?? realTimers;
    this.timeZone = options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  }

  /** Listens to the sync and ticks until stopped. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = [
      this.options.sync.onCycle((event) => void this.handleCycle(event).catch(this.reportError)),
      this.options.sync.onState(() => this.settleThenRefresh()),
      this.onDiskProblem(() => void this.refresh().catch(this.reportError)),
    ];
    this.scheduleTick();
    void this.refresh().catch(this.reportError);
  }

  /** Stops listening; waits for an evaluation in progress (its decisions are remembered). */
  async stop(): Promise<void> {
    this.running = false;
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    this.timers.clearTimeout(this.tickTimer);
    this.timers.clearTimeout(this.settleTimer);
    await this.queue.catch(() => undefined);
  }

  onAnnouncement(listener: Listener<Announcement>): () => void {
    this.announcementListeners.add(listener);
    return () => this.announcementListeners.delete(listener);
  }

  /** Called with the tray's state whenever it changes (and once after start). */
  onTrayState(listener: Listener<TrayState>): () => void {
    this.trayListeners.add(listener);
    return () => this.trayListeners.delete(listener);
  }

  /** The last computed tray state (undefined until the first is ready: see `refresh`). */
  get trayState(): TrayState | undefined {
    return this.tray;
  }

  /** Decides and makes the announcements of a finished cycle; resolves with them. */
  handleCycle(event: CycleEvent): Promise<Announcement[]> {
    return this.inTurn(async () => {
      const made = await this.releaseHeld();
      if (event.outcome === 'ok') made.push(...(await this.announceCycle(event)));
      await this.refreshNow();
      return made;
    });
  }

  /** Releases failures held during quiet hours once they are over, and redraws the tray's age. */
  tick(): Promise<Announcement[]> {
    return this.inTurn(async () => {
      const made = await this.releaseHeld();
      await this.refreshNow();
      return made;
    });
  }

  /** Recomputes the tray's state now (after a snooze or a settings change, say). */
  refresh(): Promise<TrayState> {
    return this.inTurn(() => this.refreshNow());
  }

  private readonly reportError = (error: unknown): void => this.options.onError?.(error);

  /** Evaluations run one at a time: two at once could both announce the same delivery. */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private scheduleTick(): void {
    if (!this.running) return;
    this.tickTimer = this.timers.setTimeout(() => {
      void this.tick()
        .catch(this.reportError)
        .finally(() => this.scheduleTick());
    }, TICK_MS);
  }

  /**
   * Calls `changed` when the disk starts or stops refusing the store's writes (the tray says so). The
   * store reports again at each retry while it refuses; the tray needs only the start and the end.
   */
  private onDiskProblem(changed: () => void): () => void {
    const persistence = this.options.store.persistence;
    if (!persistence) return () => undefined;
    let refusing = persistence.problem !== null;
    return persistence.onProblem((problem) => {
      if ((problem !== null) === refusing) return;
      refusing = problem !== null;
      changed();
    });
  }

  private settleThenRefresh(): void {
    if (!this.running) return;
    this.timers.clearTimeout(this.settleTimer);
    this.settleTimer = this.timers.setTimeout(
      () => void this.refresh().catch(this.reportError),
      STATE_SETTLE_MS,
    );
  }

  private async announceCycle(event: CycleEvent): Promise<Announcement[]> {
    const { store } = this.options;
    const settings = this.options.settings();
    const now = this.options.now();
    const decided = await store.whenIdle(() => {
      const snoozed = this.snoozedIds(event.orgId, now);
      const candidates = unannouncedFailures(store, event.orgId);
      const silenced = candidates.filter((dataset) => snoozed.has(dataset.datasetId));
      const rest = candidates.filter((dataset) => !snoozed.has(dataset.datasetId));
      remember(store, silenced, 'snoozed', now);
      const announcements: Announcement[] = [];
      if (isPaused(settings.notifications.pausedUntil, now)) {
        remember(store, rest, 'paused', now);
      } else if (isQuiet(settings.notifications.quietHours, now, this.timeZone)) {
        remember(store, rest, 'held', now);
      } else if (rest.length > 0 && (event.firstSync || rest.length > SUMMARY_THRESHOLD)) {
        remember(store, rest, 'summarized', now);
        announcements.push(this.summary(event.firstSync ? 'first-sync' : 'many', event.orgId, rest, now));
      } else {
        remember(store, rest, 'notified', now);
        announcements.push(...rest.map((dataset) => this.single(dataset, now)));
      }
      const recovered = this.recoveries(event, settings, snoozed, now);
      if (recovered) announcements.push(recovered);
      return { announcements, remembered: candidates.length > 0 };
    });
    if (decided.remembered) await this.saveDecisions();
    return this.emit(decided.announcements);
  }

  private async releaseHeld(): Promise<Announcement[]> {
    const { store } = this.options;
    const settings = this.options.settings();
    const now = this.options.now();
    const announcements = await store.whenIdle(() => {
      if (isQuiet(settings.notifications.quietHours, now, this.timeZone)) return [];
      const held = heldFailures(store);
      if (held.length === 0) return [];
      if (isPaused(settings.notifications.pausedUntil, now)) {
        remember(store, held, 'paused', now);
        return [];
      }
      const made: Announcement[] = [];
      for (const orgId of new Set(held.map((dataset) => dataset.orgId))) {
        const snoozed = this.snoozedIds(orgId, now);
        const ofOrg = held.filter((dataset) => dataset.orgId === orgId);
        remember(
          store,
          ofOrg.filter((dataset) => snoozed.has(dataset.datasetId)),
          'snoozed',
          now,
        );
        const rest = ofOrg.filter((dataset) => !snoozed.has(dataset.datasetId));
        if (rest.length === 0) continue;
        remember(store, rest, 'summarized', now);
        made.push(this.summary('quiet-hours', orgId, rest, now));
      }
      return made;
    });
    if (announcements.length > 0) await this.saveDecisions();
    return this.emit(announcements);
  }

  /**
   * Writes the decisions before they are announced, so a kill right after cannot announce them twice. A
   * disk that refuses the write (full, folder gone) does not hold the announcement back: the store
   * reports the problem and keeps the decisions in memory until the disk accepts them. A kill before
   * then may announce a failure again, which beats never announcing it.
   */
  private async saveDecisions(): Promise<void> {
    await this.options.store.flush().catch(() => undefined);
  }

  /** Recovery notices (opt-in): FAILED or MISSING datasets that delivered again, as one notice a cycle. */
  private recoveries(
    event: CycleEvent,
    settings: Settings,
    snoozed: Set<string>,
    now: Date,
  ): Announcement | null {
    if (!settings.notifications.recoveryNotices || event.firstSync) return null;
    if (isPaused(settings.notifications.pausedUntil, now)) return null;
    if (isQuiet(settings.notifications.quietHours, now, this.timeZone)) return null;
    const recovered = event.transitions.filter(
      (t) =>
        t.from !== null &&
        t.to !== null &&
        RECOVERED_FROM.has(t.from) &&
        RECOVERED_TO.has(t.to) &&
        !snoozed.has(t.datasetId),
    );
    if (recovered.length === 0) return null;
    const { store } = this.options;
    const datasets = recovered.map((t) => ({
      datasetId: t.datasetId,
      datasetName: datasetName(store, event.orgId, t.datasetId),
      from: t.from!,
      to: t.to!,
    }));
    const [only] = datasets;
    return {
      kind: 'recovered',
      orgId: event.orgId,
      datasets,
      ...recoveredText(datasets),
      target:
        datasets.length === 1 && only
          ? { view: 'dataset', orgId: event.orgId, datasetId: only.datasetId }
          : { view: 'datasets', orgId: event.orgId },
      at: now.toISOString(),
    };
  }

  private single(dataset: FailedDataset, now: Date): Announcement {
    const reason = this.reasonOf(dataset);
    return {
      kind: 'failed',
      dataset,
      reason,
      ...failedText(dataset, reason),
      target: {
        view: 'delivery',
        orgId: dataset.orgId,
        datasetId: dataset.datasetId,
        deliveryId: dataset.deliveryId,
      },
      at: now.toISOString(),
    };
  }

  private summary(
    cause: 'first-sync' | 'many' | 'quiet-hours',
    orgId: string,
    datasets: FailedDataset[],
    now: Date,
  ): Announcement {
    return {
      kind: 'summary',
      cause,
      orgId,
      datasets,
      ...summaryText(cause, orgId, datasets),
      target: { view: 'failed', orgId },
      at: now.toISOString(),
    };
  }

  /** The first failed task of the delivery, from its stored tasks (the sync fetches them for FAILED ones). */
  private reasonOf(dataset: FailedDataset): FailureReason | null {
    const tasks = getDeliveryTasks(this.options.store, dataset.orgId, dataset.deliveryId, false);
    if (!tasks.found) return null;
    const [first] = failedTasks(JSON.parse(tasks.json) as TasksRecord);
    return first
      ? { stage: first.stage, shortCode: first.task.shortCode, message: first.task.message }
      : null;
  }

  private snoozedIds(orgId: string, now: Date): Set<string> {
    return new Set(listSnoozes(this.options.store, orgId, now).map((snooze) => snooze.datasetId));
  }

  private emit(announcements: Announcement[]): Announcement[] {
    for (const announcement of announcements)
      for (const listener of this.announcementListeners) {
        try {
          listener(announcement);
        } catch (error) {
          this.reportError(error);
        }
      }
    return announcements;
  }

  private async refreshNow(): Promise<TrayState> {
    const { store } = this.options;
    const state = await store.whenIdle(() =>
      computeTrayState(store, this.options.sync.states(), this.options.settings(), this.options.now()),
    );
    this.tray = state;
    const key = JSON.stringify(state);
    if (key !== this.trayKey) {
      this.trayKey = key;
      for (const listener of this.trayListeners) listener(state);
    }
    return state;
  }
}
