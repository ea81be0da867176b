/**
 * One source's sync loop (docs/architecture.md#sync): a full crawl at start and every `crawlMs`, a fast poll every
 * `pollMs` in between, one cycle at a time. Each cycle is recorded as a sync run, updates the source's
 * state and reports its transitions. A key the remote refuses stops the loop until the source changes.
 */
import { DEFAULT_INCIDENT_GAP_MS } from '../store/schema/incidents';
import { EMPTY_COUNTS, type CycleEvent, type SourceState, type SyncKind } from '../../shared/sync';
import type { Store } from '../store/database';
import type { Source } from '../store/tables/sources';
import { lastSyncRun, recordSyncRun } from '../store/tables/syncRuns';
import { type SpoolOptions, defaultSpoolOptions } from './changes';
import { type FetchLike, RemoteClient, RemoteError, type RetryPolicy, type Sleep } from './client';
import { type CycleContext, DEFAULT_CONCURRENCY } from './context';
import { runCrawl } from './crawl';
import { FilterRejected, runPoll } from './poll';

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** What a sync reaches the outside world and time through, injected so tests control them. */
export interface SyncDeps {
  now: () => Date;
  fetch?: FetchLike;
  sleep?: Sleep;
  random?: () => number;
  timers?: Timers;
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** Where changed records past the memory bound wait for the commit (default: the temp folder, 8 MiB). */
  spool?: Partial<SpoolOptions>;
}

export interface RunnerOptions extends SyncDeps {
  store: Store;
  source: Source;
  /** null: no key available (the state says where to set one). */
  apiKey: string | null;
  missingKeyHint: string;
  intervals: { pollMs: number; crawlMs: number };
  deliveriesPerDataset: number;
  /** Failures of one cause this close in time are one incident; default 6 h. */
  incidentGapMs?: number;
  concurrency?: number;
  onCycle?: (event: CycleEvent) => void;
  onState?: (state: SourceState) => void;
  /** Progress lines while a cycle runs (the CLI prints them). */
  onProgress?: (line: string) => void;
}

export class SourceRunner {
  private current: SourceState;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: unknown;
  private readonly abort = new AbortController();
  private lastCrawlAt: number | null = null;
  private stopping = false;
  readonly client: RemoteClient | null;

  constructor(private readonly options: RunnerOptions) {
    const { source, store } = options;
    const ok = lastSyncRun(store, source.id, 'ok');
    const failed = lastSyncRun(store, source.id, 'failed');
    const failedLast = failed !== undefined && (ok === undefined || failed.id > ok.id);
    this.current = {
      sourceId: source.id,
      orgId: source.orgId,
      name: source.name,
      phase: failedLast ? 'error' : 'idle',
      activity: null,
      lastSuccessAt: ok?.startedAt ?? null,
      lastError: failedLast ? failed.error : null,
      lastErrorAt: failedLast ? failed.endedAt : null,
      lastDurationMs: null,
      lastCounts: ok?.counts ?? null,
      nextRunAt: null,
      stopped: false,
      pollIntervalMs: options.intervals.pollMs,
    };
    this.client =
      options.apiKey === null
        ? null
        : new RemoteClient({
            baseUrl: source.baseUrl,
            apiKey: options.apiKey,
            fetch: options.fetch,
            sleep: options.sleep,
            random: options.random,
            now: () => options.now().getTime(),
            timeoutMs: options.timeoutMs,
            retry: options.retry,
            onRetry: ({ attempt, delayMs, error }) =>
              this.progress(`${error.message}; retry ${attempt} in ${Math.round(delayMs / 1000)} s`),
          });
  }

  get state(): SourceState {
    return { ...this.current };
  }

  /** Starts the loop with a full crawl now. */
  start(): void {
    this.scheduleIn(0);
  }

  /** Runs a full crawl now (after the cycle in progress, if any). */
  syncNow(): Promise<CycleEvent> {
    return this.enqueue('crawl');
  }

  /** Runs one cycle of the given kind now (after the one in progress). */
  runCycle(kind: SyncKind): Promise<CycleEvent> {
    return this.enqueue(kind);
  }

  /** Stops the loop: a cycle in progress is aborted (its transaction rolls back) and awaited. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.clearTimer();
    this.abort.abort(new Error('sync stopped'));
    await this.queue.catch(() => {});
  }

  private enqueue(kind: SyncKind): Promise<CycleEvent> {
    this.clearTimer();
    const run = this.queue.then(() => this.cycle(kind));
    this.queue = run.catch(() => {});
    return run;
  }

  private clearTimer(): void {
    if (this.timer !== undefined) (this.options.timers ?? realTimers).clearTimeout(this.timer);
    this.timer = undefined;
  }

  private scheduleIn(ms: number): void {
    if (this.stopping || this.current.stopped) return;
    this.clearTimer();
    const at = new Date(this.options.now().getTime() + ms);
    this.update({ nextRunAt: at.toISOString() });
    this.timer = (this.options.timers ?? realTimers).setTimeout(() => {
      this.timer = undefined;
      void this.enqueue(this.dueKind()).catch(() => {});
    }, ms);
  }

  /** A crawl when none succeeded yet or the last one is older than the crawl interval; else a poll. */
  private dueKind(): SyncKind {
    const now = this.options.now().getTime();
    return this.lastCrawlAt === null || now - this.lastCrawlAt >= this.options.intervals.crawlMs
      ? 'crawl'
      : 'poll';
  }

  private progress(line: string): void {
    this.update({ activity: line });
    this.options.onProgress?.(line);
  }

  private update(change: Partial<SourceState>): void {
    this.current = { ...this.current, ...change };
    this.options.onState?.(this.state);
  }

  private async cycle(requested: SyncKind): Promise<CycleEvent> {
    const { store, source, now } = this.options;
    const started = now();
    let kind = requested;
    const event = (
      outcome: 'ok' | 'failed',
      error: string | null,
      partial?: Partial<CycleEvent>,
    ): CycleEvent => ({
      sourceId: source.id,
      orgId: source.orgId,
      kind,
      outcome,
      firstSync: false,
      transitions: [],
      counts: { ...EMPTY_COUNTS },
      error,
      startedAt: started.toISOString(),
      endedAt: now().toISOString(),
      ...partial,
    });
    if (this.client === null) {
      const message = `no API key for source '${source.id}': ${this.options.missingKeyHint}`;
      this.update({
        phase: 'error',
        stopped: true,
        lastError: message,
        lastErrorAt: started.toISOString(),
        nextRunAt: null,
      });
      const failed = event('failed', message);
      this.options.onCycle?.(failed);
      return failed;
    }
    this.update({ phase: 'syncing', activity: `${kind}: starting`, nextRunAt: null });
    const ctx: CycleContext = {
      store,
      client: this.client,
      orgId: source.orgId,
      now,
      signal: this.abort.signal,
      deliveriesPerDataset: this.options.deliveriesPerDataset,
      incidentGapMs: this.options.incidentGapMs ?? DEFAULT_INCIDENT_GAP_MS,
      concurrency: this.options.concurrency ?? DEFAULT_CONCURRENCY,
      spool: defaultSpoolOptions(this.options.spool),
      progress: (line) => this.progress(line),
    };
    let result: CycleEvent;
    try {
      let outcome;
      if (kind === 'poll') {
        try {
          outcome = await runPoll(ctx);
        } catch (error) {
          if (!(error instanceof FilterRejected)) throw error;
          this.progress(
            `the remote refused the FAILED/MISSING filter (${error.message}): full crawl instead`,
          );
          kind = 'crawl';
          outcome = await runCrawl(ctx);
        }
      } else {
        outcome = await runCrawl(ctx);
      }
      if (outcome.kind === 'crawl') this.lastCrawlAt = started.getTime();
      result = event('ok', null, outcome);
      const record = { sourceId: source.id, orgId: source.orgId, kind, startedAt: started, endedAt: now() };
      await store.whenIdle(() => recordSyncRun(store, { ...record, outcome: 'ok', counts: outcome.counts }));
      this.update({
        phase: 'idle',
        activity: null,
        lastSuccessAt: started.toISOString(),
        lastError: null,
        lastErrorAt: null,
        lastDurationMs: now().getTime() - started.getTime(),
        lastCounts: outcome.counts,
        // A success (say, "Sync now" after the key was fixed) resumes a loop a rejected key had stopped.
        stopped: false,
      });
    } catch (error) {
      const unauthorized = error instanceof RemoteError && error.kind === 'unauthorized';
      const message = unauthorized
        ? `${describeFailure(error, this.abort.signal)}; the source is stopped: ${this.options.missingKeyHint} to a valid key and restart`
        : describeFailure(error, this.abort.signal);
      const offline = error instanceof RemoteError && error.kind === 'transient';
      result = event('failed', message);
      await store
        .whenIdle(() =>
          recordSyncRun(store, {
            sourceId: source.id,
            orgId: source.orgId,
            kind,
            startedAt: started,
            endedAt: now(),
            outcome: 'failed',
            counts: result.counts,
            error: message,
          }),
        )
        .catch(() => {});
      this.update({
        phase: offline ? 'offline' : 'error',
        activity: null,
        lastError: message,
        lastErrorAt: now().toISOString(),
        lastDurationMs: now().getTime() - started.getTime(),
        stopped: unauthorized,
      });
    }
    this.options.onCycle?.(result);
    this.scheduleIn(this.options.intervals.pollMs);
    return result;
  }
}

function describeFailure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'sync stopped';
  return error instanceof Error ? error.message : String(error);
}
