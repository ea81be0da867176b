/**
 * The deliverer drains the routes' outbox (docs/decisions.md "Routes: at most once (issue 27)"). Each
 * route has its own lane, one attempt at a time, so a route that fails or hangs (each attempt ends at
 * its timeout) never holds up another. Before an attempt its row is marked `sending` and the store
 * flushed to disk: a row found `sending` at start-up was cut off mid-attempt, may have arrived, and is
 * made dead rather than sent twice. Only an attempt that surely did not arrive is tried again, with
 * backoff, until the policy's last attempt.
 */
import type { Route } from '../../shared/rules';
import type { Store, StoreLogger } from '../store/database';
import { readRuleSet } from '../store/tables/ruleSets';
import {
  type OutboxOutcome,
  type OutboxRow,
  abandonSendingRows,
  claimOutboxRow,
  dueOutboxRows,
  nextOutboxAttemptAt,
  outboxRow,
  pruneOutbox,
  settleOutboxRow,
  unclaimOutboxRow,
} from '../store/tables/routeOutbox';
import {
  type AttemptResult,
  type FetchLike,
  type SpawnLike,
  type Timers,
  errorWords,
  realTimers,
} from './attempt';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelayMs } from './backoff';
import { runHookRoute } from './command';
import { routeDocument } from './payload';
import { postWebhook } from './webhook';

/** The words of a row found `sending` at start-up. */
export const OUTCOME_UNKNOWN_AT_START = 'outcome unknown: the app stopped during delivery';
/** How often the outbox is looked at without being woken (rows sent again by another door). */
const POLL_MS = 60_000;
/** Rows read per look: more wait for the next one. */
const BATCH = 200;
const DAY_MS = 86_400_000;
/** How long sent and dead rows are kept (docs/storage.md "The routes' outbox"). */
const KEEP_SENT_MS = 30 * DAY_MS;
const KEEP_DEAD_MS = 90 * DAY_MS;

export interface RouteDelivererOptions {
  store: Store;
  /** The route as the org's rules have it now; null when they have no such route. Default: the stored rules. */
  routeOf?: (store: Store, orgId: string, routeId: string) => Route | null;
  now?: () => Date;
  /** In [0, 1): the backoff's jitter. */
  random?: () => number;
  fetch?: FetchLike;
  spawn?: SpawnLike;
  timers?: Timers;
  retry?: RetryPolicy;
  /** How often the outbox is looked at unwoken. */
  pollMs?: number;
  /** The environment and folder of command hooks (default: the process's). */
  hookEnv?: NodeJS.ProcessEnv;
  hookCwd?: string;
  /** Called with each row once its attempt is settled (the log, the tests). */
  onSettled?: (row: OutboxRow) => void;
  log?: StoreLogger;
}

/** The route `routeId` of the org's stored rules (an org without rules of its own has no routes). */
export function storedRoute(store: Store, orgId: string, routeId: string): Route | null {
  try {
    const { set } = readRuleSet(store, orgId, { rules: [], routes: [] });
    return set.routes.find((route) => route.id === routeId) ?? null;
  } catch {
    // Rules the check refuses are not in force (the alerts use the default set, which has no routes).
    return null;
  }
}

const laneOf = (row: OutboxRow): string => `${row.orgId}\u0000${row.routeId}`;

export class RouteDeliverer {
  private readonly store: Store;
  private readonly now: () => Date;
  private readonly random: () => number;
  private readonly timers: Timers;
  private readonly retry: RetryPolicy;
  /** The attempt in flight of each lane (org and route). */
  private readonly lanes = new Map<string, Promise<void>>();
  private pumping: Promise<void> | null = null;
  private again = false;
  private timer: unknown = null;
  private started = false;
  private stopped = false;

  constructor(private readonly options: RouteDelivererOptions) {
    this.store = options.store;
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.timers = options.timers ?? realTimers;
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
  }

  /**
   * Makes every row left `sending` by the last run dead (its outcome is unknown), forgets old rows, and
   * starts delivering. Returns the rows made dead.
   */
  async start(): Promise<OutboxRow[]> {
    if (this.started) return [];
    this.started = true;
    const now = this.now();
    const abandoned = await this.store.whenIdle(() => {
      const rows = abandonSendingRows(this.store, OUTCOME_UNKNOWN_AT_START, now);
      pruneOutbox(this.store, new Date(now.getTime() - KEEP_SENT_MS), new Date(now.getTime() - KEEP_DEAD_MS));
      return rows;
    });
    for (const row of abandoned)
      this.options.log?.warn(
        `route ${row.routeId} of ${row.orgId}: ${row.notificationId} ${OUTCOME_UNKNOWN_AT_START}`,
      );
    this.wake();
    return abandoned;
  }

  /** Something was enqueued or sent again: look at the outbox now. */
  wake(): void {
    if (!this.started || this.stopped) return;
    this.pump().catch((error: unknown) => this.options.log?.error(`routes: ${errorWords(error)}`));
  }

  /** Delivers everything due now and waits until no attempt is in flight (what is due later waits). */
  async drain(): Promise<void> {
    for (;;) {
      await this.pump();
      if (this.lanes.size === 0 && !this.again) return;
      await Promise.all([...this.lanes.values()]);
    }
  }

  /** Starts no more attempts and waits for those in flight, each within its route's timeout. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.clearTimeout(this.timer);
    this.timer = null;
    // A failed look was logged where it happened: stopping goes on.
    await this.pumping?.catch(() => undefined);
    await Promise.all([...this.lanes.values()]);
  }

  /** One look at the outbox at a time; a wake during one makes another after it. */
  private pump(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.pumping) {
      this.again = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      try {
        do {
          this.again = false;
          await this.look();
        } while (this.again && !this.stopped);
      } finally {
        this.pumping = null;
      }
    })();
    return this.pumping;
  }

  /** Starts the first due row of each free lane, and sets the timer for the next due row. */
  private async look(): Promise<void> {
    const now = this.now();
    const { due, next } = await this.store.whenIdle(() => ({
      due: dueOutboxRows(this.store, now, BATCH),
      next: nextOutboxAttemptAt(this.store),
    }));
    if (this.stopped) return;
    if (due.length === BATCH) this.again = true;
    for (const row of due) {
      const lane = laneOf(row);
      if (this.lanes.has(lane)) continue;
      const attempt = this.deliver(row)
        .catch((error: unknown) => this.options.log?.error(`routes: ${errorWords(error)}`))
        .finally(() => {
          this.lanes.delete(lane);
          this.wake();
        });
      this.lanes.set(lane, attempt);
    }
    // A row due now waits for its lane, which wakes the deliverer when it is free.
    const poll = this.options.pollMs ?? POLL_MS;
    const until = next === null ? poll : Date.parse(next) - now.getTime();
    this.schedule(until > 0 ? Math.min(until, poll) : poll);
  }

  private schedule(ms: number): void {
    this.timers.clearTimeout(this.timer);
    this.timer = this.timers.setTimeout(() => this.wake(), ms);
  }

  private async deliver(due: OutboxRow): Promise<void> {
    const { store } = this;
    const routeOf = this.options.routeOf ?? storedRoute;
    const claim = await store.whenIdle(() => {
      const claimed = claimOutboxRow(store, due.id, this.now());
      if (!claimed) return null;
      const route = routeOf(store, claimed.orgId, claimed.routeId);
      // Nothing to attempt: dead at once, and nothing to flush first.
      if (!route)
        settleOutboxRow(
          store,
          claimed.id,
          { state: 'dead', error: `the org's rules have no route "${claimed.routeId}" any more` },
          this.now(),
        );
      return { claimed, route };
    });
    if (!claim) return;
    const { claimed, route } = claim;
    if (!route) return this.settled(claimed.id);
    try {
      // At most once: the `sending` mark is on disk before anything leaves.
      await store.flush();
    } catch (error) {
      const next = new Date(this.now().getTime() + retryDelayMs(1, this.retry, this.random));
      await store.whenIdle(() =>
        unclaimOutboxRow(
          store,
          claimed.id,
          next,
          `not attempted: the disk refused (${errorWords(error)})`,
          this.now(),
        ),
      );
      return;
    }
    const result = await this.attempt(route, claimed);
    const outcome = this.outcomeOf(result, claimed);
    await store.whenIdle(() => settleOutboxRow(store, claimed.id, outcome, this.now()));
    await this.settled(claimed.id);
  }

  private async settled(id: number): Promise<void> {
    if (!this.options.onSettled) return;
    const row = await this.store.whenReadable(() => outboxRow(this.store, id));
    if (row) this.options.onSettled(row);
  }

  private async attempt(route: Route, row: OutboxRow): Promise<AttemptResult> {
    try {
      const document = routeDocument(row, row.payload);
      if (route.kind === 'webhook')
        return await postWebhook(route, document, {
          fetch: this.options.fetch ?? ((url, init) => fetch(url, init)),
          timers: this.timers,
          now: this.now,
        });
      return await runHookRoute(route, document, {
        spawn: this.options.spawn,
        timers: this.timers,
        env: this.options.hookEnv,
        cwd: this.options.hookCwd,
      });
    } catch (error) {
      // A fault of ours once the attempt may have begun: what left is unknown, so it is never repeated.
      return { kind: 'unknown', error: errorWords(error) };
    }
  }

  private outcomeOf(result: AttemptResult, row: OutboxRow): OutboxOutcome {
    if (result.kind === 'sent') return { state: 'sent' };
    if (result.kind === 'unknown') return { state: 'dead', error: `outcome unknown: ${result.error}` };
    if (result.final) return { state: 'dead', error: result.error };
    if (row.attempts >= this.retry.maxAttempts)
      return { state: 'dead', error: `${result.error} (gave up after ${row.attempts} attempts)` };
    const delay = Math.max(retryDelayMs(row.attempts, this.retry, this.random), result.retryAfterMs ?? 0);
    return { state: 'pending', nextAttemptAt: new Date(this.now().getTime() + delay), error: result.error };
  }
}
