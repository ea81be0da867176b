/**
 * The alerter (docs/architecture.md#alerts, docs/architecture.md#the-on-call-layer): after every sync cycle, and at every tick, it decides what to
 * announce and keeps the tray's state. Plain Node: the app turns announcements into notifications,
 * `serve` into log lines and an optional hook; both read the same tray state. This file schedules and
 * emits; the decisions are failures.ts, grouping.ts, reminders.ts and contact.ts.
 *
 * At a cycle (then a tick does the same without 2–3):
 * 1. failures held in quiet hours are released once they are over: one summary per org with its top
 *    causes (silenced if paused now or the dataset is snoozed); then failures batched by a cause's
 *    cool-down whose cause has been quiet for COOL_DOWN_MS: one "N more" notification per cause
 *    (silenced if paused or snoozed, held in quiet hours);
 * 2. the cycle's FAILED deliveries never announced before, in order: a snoozed dataset's are silenced;
 *    paused: all silenced; quiet hours: held; the org's first sync: one summary with the top causes;
 *    a cause notified less than COOL_DOWN_MS ago (coolDown.ts): batched until it has been quiet that
 *    long, so an outage failing one dataset a poll notifies once per cool-down, not every minute;
 * 3. otherwise grouped by cause: a cause with two or more → one notification naming the cause, its
 *    suppliers and the count (opens that cause in Triage); a cause with one → that failure's own
 *    notification (dataset, failed stage, shortCode/message; opens the delivery); more than three
 *    notifications → one summary of the top causes instead; then recovery notices (opt-in);
 * 4. reminders: failures told of, still FAILED, not acknowledged nor snoozed, every `reminderMinutes`
 *    at most three times, grouped by cause; none while paused or in quiet hours;
 * 5. source contact: one notice when a source's data turns stale (no successful sync for three poll
 *    intervals, failing or not), one when it syncs again (paused: recorded only; quiet hours: a loss is
 *    held until they end). The deadlines that pass meanwhile (overdue, unverified) only count in the
 *    tray: that notice covers them.
 * Every decision is remembered (with a timeline entry for what it announces) and saved before it is
 * emitted: a delivery is announced at most once, ever — a kill between the two loses that notification
 * rather than repeat it.
 */
import type { Settings } from '../../shared/settings';
import type { CycleEvent, SourceState } from '../../shared/sync';
import type { Store } from '../store/database';
import type { AlertsContext } from './context';
import { ContactWatch } from './contact';
import { readCandidates, stillCurrent } from './candidates';
import { releaseDigests, trayDigests } from './digests';
import { announceFailures, decideCycle, releaseBatched, releaseHeld } from './failures';
import { decideReminders } from './reminders';
import { ruleContact } from './ruleContact';
import { NO_OVERDUE, type TrayOverdue, type TrayState, computeTrayState } from './trayState';
import { TICK_MS } from './tick';
import type { Announcement } from './types';

export { SUMMARY_THRESHOLD } from './grouping';
export { COOL_DOWN_MS } from './coolDown';
export { TICK_MS } from './tick';
/** Source state changes (progress every page) are gathered for this long before the tray is redrawn. */
const STATE_SETTLE_MS = 500;
/** Lets the event loop run (timers, I/O, the API's requests) between two parts of an evaluation. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

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
  /**
   * The overdue (unverified) deadlines now, over every org (the engine's deadline clock: this layer knows
   * no schedules). Asked at every redraw, the tick's included, so the count grows offline as deadlines
   * pass. Only for the tray: overdue datasets are never announced (the "lost contact" notice covers them).
   */
  overdue?: () => Promise<TrayOverdue>;
  /**
   * Called once decisions are saved: what the rules sent to hooks and webhooks is queued in the store
   * (alerts/ruleSend.ts), and the routes' deliverer looks at its outbox now.
   */
  decisionsSaved?: () => void;
}

type Listener<T> = (value: T) => void;

const realTimers: AlertTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class Alerter {
  private readonly announcementListeners = new Set<Listener<Announcement>>();
  private readonly trayListeners = new Set<Listener<TrayState>>();
  private readonly timers: AlertTimers;
  private readonly timeZone: string;
  private readonly contact = new ContactWatch();
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
    this.contact.sawCycle(event.sourceId, this.options.now());
    return this.inTurn(() => this.evaluate(event));
  }

  /** Releases what quiet hours held and cool-downs batched, reminds, judges source contact, and redraws the tray's age. */
  tick(): Promise<Announcement[]> {
    return this.inTurn(() => this.evaluate(null));
  }

  /** Recomputes the tray's state now (after a snooze or a settings change, say). */
  refresh(): Promise<TrayState> {
    return this.inTurn(() => this.refreshNow());
  }

  private async evaluate(event: CycleEvent | null): Promise<Announcement[]> {
    const { store } = this.options;
    const cycle = event?.outcome === 'ok' ? event : null;
    // The cycle's unannounced failures first, in a turn of their own (reading them was half of the
    // decision's turn at 100k datasets); used below only if no data commit came in between.
    const read = cycle ? await store.whenReadable(() => readCandidates(store, cycle.orgId)) : undefined;
    if (read) await nextTurn();
    const first = await store.whenIdle(() => {
      const ctx = this.context();
      // Checked first, before anything below commits: only a data commit since the read can have
      // changed them (the releases rewrite rows already remembered, as bookkeeping).
      const candidates = stillCurrent(store, read);
      const held = releaseHeld(ctx);
      // Released before the cycle's own: a cause out of its cool-down says "N more" now, and the
      // cycle's new failures of it wait for the next window.
      const released = releaseBatched(ctx);
      let remembered = held.remembered || released.remembered;
      const drafts = [...held.drafts, ...released.drafts];
      let notices: Announcement[] = [];
      if (cycle) {
        const decided = decideCycle(ctx, cycle, candidates);
        drafts.push(...decided.drafts);
        notices = decided.notices;
        remembered ||= decided.remembered;
      }
      // The summary rule over the whole evaluation: releases and new failures together.
      const made = [...announceFailures(ctx, drafts), ...notices];
      // Digests due now, one per rule: on ticks only, which fall on the grid the replay ticks on.
      if (event === null) {
        const digests = releaseDigests(ctx);
        made.push(...trayDigests(ctx, digests.sent));
        remembered ||= digests.remembered;
      }
      return { made, remembered: remembered || made.length > 0 };
    });
    if (first.remembered) await this.saveDecisions();
    this.emit(first.made);
    // Reminders and source contact in a turn of their own, once the cycle's announcements are made
    // and shown: together they held the engine for 60–80 ms after a poll at 100k datasets
    // (docs/decisions.md "What a commit sets off, at 100k").
    await nextTurn();
    // Settings, the clock and the sources as they are now: a long commit may have come in between.
    const then = await store.whenIdle(() => {
      const ctx = this.context();
      const states = this.options.sync.states();
      const orgIds = [...new Set([...states.map((state) => state.orgId), ...(event ? [event.orgId] : [])])];
      const justSynced = event?.outcome === 'ok' ? event.sourceId : null;
      const contact = this.contact.decide(ctx, states, justSynced);
      return [...decideReminders(ctx, orgIds), ...ruleContact(ctx, contact.lost, contact.notices)];
    });
    if (then.length > 0) await this.saveDecisions();
    this.emit(then);
    await nextTurn();
    await this.refreshNow();
    return [...first.made, ...then];
  }

  private context(): AlertsContext {
    return {
      store: this.options.store,
      settings: this.options.settings(),
      now: this.options.now(),
      timeZone: this.timeZone,
    };
  }

  private readonly reportError = (error: unknown): void => this.options.onError?.(error);

  /** Evaluations run one at a time: two at once could both announce the same delivery. */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** The next tick on the TICK_MS grid (since the epoch): the replay of the rules ticks on the same one. */
  private scheduleTick(): void {
    if (!this.running) return;
    const now = this.options.now().getTime();
    this.tickTimer = this.timers.setTimeout(
      () => {
        void this.tick()
          .catch(this.reportError)
          .finally(() => this.scheduleTick());
      },
      TICK_MS - (((now % TICK_MS) + TICK_MS) % TICK_MS),
    );
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

  /**
   * Writes the decisions before they are announced, so a kill right after cannot announce them twice. A
   * disk that refuses the write (full, folder gone) does not hold the announcement back: the store
   * reports the problem and keeps the decisions in memory until the disk accepts them. A kill before
   * then may announce a failure again, which beats never announcing it.
   */
  private async saveDecisions(): Promise<void> {
    await this.options.store.flush().catch(() => undefined);
    this.options.decisionsSaved?.();
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
    // Outside whenIdle: the deadline clock reads the store's history in its own turns.
    const overdue = this.options.overdue
      ? await this.options.overdue().catch((error: unknown) => {
          this.reportError(error);
          return NO_OVERDUE;
        })
      : NO_OVERDUE;
    const state = await store.whenIdle(() =>
      computeTrayState(
        store,
        this.options.sync.states(),
        this.options.settings(),
        this.options.now(),
        overdue,
      ),
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
