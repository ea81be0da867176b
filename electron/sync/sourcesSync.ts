/**
 * The sync of every enabled source (docs/architecture.md#sync), as the app and `serve` run it: one runner per
 * source, their states, "sync now", listeners for finished cycles and state changes, and the tasks
 * read-through the local API uses for deliveries whose tasks were never synced.
 */
import { DEFAULT_INCIDENT_GAP_MS, refreshIncidents, tasksScope } from '../store/schema/incidents';
import type { SourceState } from '../../shared/sync';
import type { Store } from '../store/database';
import { DEFAULT_DELIVERIES_PER_DATASET, hasDelivery, writeTasks } from '../store/tables/datasetWriter';
import { DEFAULT_SETTINGS } from '../../shared/settings';
import { type Source, listSources } from '../store/tables/sources';
import type { TasksReadThrough } from '../query/tasks';
import { fetchTasks } from './remote';
import type { CycleEvent } from '../../shared/sync';
import { SourceRunner, type SyncDeps } from './runner';
import type { SecretKeeper } from './secrets';

export interface SourcesSyncOptions extends SyncDeps {
  store: Store;
  secrets: SecretKeeper;
  /** Other intervals than the defaults (serve flags, tests). */
  intervals?: { pollMs?: number; crawlMs?: number };
  deliveriesPerDataset?: number;
  /** Failures of one cause this close in time are one incident; default 6 h. */
  incidentGapMs?: number;
  /**
   * Sources that live only while this process runs, with their key (the built-in demo source backed by
   * the in-process simulator): never stored, so a stale loopback URL never outlives its simulator.
   */
  builtIn?: { source: Source; apiKey: string; intervals?: { pollMs: number; crawlMs: number } }[];
}

/** What the settings change in the sync (reload). */
export type SyncSettings = Pick<SourcesSyncOptions, 'intervals' | 'deliveriesPerDataset' | 'incidentGapMs'>;

type Listener<T> = (value: T) => void;

/** A read-through answers an API request: it must not hang on a remote that is down. */
const READ_THROUGH_TIMEOUT_MS = 10_000;
const READ_THROUGH_RETRY = { retries: 1, baseDelayMs: 500, maxRetryAfterMs: 2_000 };

export class SourcesSync {
  private runners = new Map<string, SourceRunner>();
  private changing: Promise<void> = Promise.resolve();
  /** Stopped for good: a reload queued behind the stop (a `sources add` as the instance quits) starts nothing. */
  private stopped = false;
  private settings: SyncSettings;
  private readonly cycleListeners = new Set<Listener<CycleEvent>>();
  private readonly stateListeners = new Set<Listener<SourceState>>();
  constructor(private readonly options: SourcesSyncOptions) {
    this.settings = {
      intervals: options.intervals,
      deliveriesPerDataset: options.deliveriesPerDataset,
      incidentGapMs: options.incidentGapMs,
    };
  }

  /**
   * Starts a runner per enabled source (each begins with a full crawl). Sources are read once: a change
   * to them takes effect at the next start.
   */
  start(): void {
    this.createRunners();
    for (const runner of this.runners.values()) runner.start();
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.inTurn(() => this.stopRunners());
  }

  /**
   * Applies changed sources or settings: stops every runner (a commit in progress rolls back) and starts
   * them again from the stored sources, each with a full crawl.
   */
  reload(settings: SyncSettings): Promise<void> {
    return this.inTurn(async () => {
      await this.stopRunners();
      this.settings = settings;
      // The change is stored: the next start reads it.
      if (!this.stopped) this.start();
    });
  }

  /** Reloads and stops run one after another: two at once would start runners neither stops. */
  private inTurn(change: () => Promise<void>): Promise<void> {
    const next = this.changing.then(change);
    this.changing = next.catch(() => undefined);
    return next;
  }

  states(): SourceState[] {
    return [...this.runners.values()].map((runner) => runner.state);
  }

  /** A full crawl of one source, or of every enabled source. */
  syncNow(sourceId?: string): Promise<CycleEvent[]> {
    const runners = [...this.runners.entries()]
      .filter(([id]) => sourceId === undefined || id === sourceId)
      .map(([, runner]) => runner);
    return Promise.all(runners.map((runner) => runner.syncNow()));
  }

  runner(sourceId: string): SourceRunner | undefined {
    return this.runners.get(sourceId);
  }

  onCycle(listener: Listener<CycleEvent>): () => void {
    this.cycleListeners.add(listener);
    return () => this.cycleListeners.delete(listener);
  }

  onState(listener: Listener<SourceState>): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** Fetches, stores and reports the tasks of a delivery of the org; false when that cannot be done now. */
  readonly readThrough: TasksReadThrough = async (orgId, deliveryId) => {
    const { store } = this.options;
    // The org's running source, through its own client: a read-through answers an API request, so it
    // retries once, soon, and gives up within READ_THROUGH_TIMEOUT_MS.
    const runner = [...this.runners.values()].find((r) => r.state.orgId === orgId);
    const client = runner?.client?.with({ timeoutMs: READ_THROUGH_TIMEOUT_MS, retry: READ_THROUGH_RETRY });
    if (!client || !(await store.whenReadable(() => hasDelivery(store, orgId, deliveryId)))) return false;
    try {
      const tasks = await fetchTasks(client, deliveryId);
      if (tasks === null) return false;
      const gapMs = this.settings.incidentGapMs ?? DEFAULT_INCIDENT_GAP_MS;
      await store.whenIdle(() =>
        store.transaction(() => {
          writeTasks(store, orgId, deliveryId, tasks);
          // A failure whose cause was unknown moves to its own incident, with its true time.
          refreshIncidents(store, orgId, {
            now: this.options.now(),
            gapMs,
            datasetIds: tasksScope(store, orgId, [deliveryId]),
          });
        }),
      );
      return true;
    } catch {
      return false;
    }
  };

  private createRunners(): void {
    const { store } = this.options;
    const intervals = {
      pollMs: this.settings.intervals?.pollMs ?? DEFAULT_SETTINGS.intervals.pollSeconds * 1000,
      crawlMs: this.settings.intervals?.crawlMs ?? DEFAULT_SETTINGS.intervals.crawlMinutes * 60_000,
    };
    this.runners = new Map(
      this.enabledSources().map(({ source, apiKey, intervals: own }) => [
        source.id,
        new SourceRunner({
          store,
          source,
          apiKey,
          missingKeyHint: this.options.secrets.hint,
          now: this.options.now,
          intervals: own ?? intervals,
          deliveriesPerDataset: this.settings.deliveriesPerDataset ?? DEFAULT_DELIVERIES_PER_DATASET,
          incidentGapMs: this.settings.incidentGapMs ?? DEFAULT_INCIDENT_GAP_MS,
          fetch: this.options.fetch,
          sleep: this.options.sleep,
          random: this.options.random,
          timers: this.options.timers,
          timeoutMs: this.options.timeoutMs,
          retry: this.options.retry,
          spool: this.options.spool,
          onCycle: (event) => this.cycleListeners.forEach((listener) => listener(event)),
          onState: (state) => this.stateListeners.forEach((listener) => listener(state)),
        }),
      ]),
    );
  }

  /** Stored enabled sources with their keys, then the built-in ones. */
  private enabledSources(): {
    source: Source;
    apiKey: string | null;
    intervals?: { pollMs: number; crawlMs: number };
  }[] {
    return [
      ...listSources(this.options.store)
        .filter((source) => source.enabled)
        .map((source) => ({ source, apiKey: this.options.secrets.apiKeyFor(source) })),
      ...(this.options.builtIn ?? []),
    ];
  }

  private async stopRunners(): Promise<void> {
    const stopping = [...this.runners.values()];
    this.runners = new Map();
    await Promise.all(stopping.map((runner) => runner.stop()));
  }
}
