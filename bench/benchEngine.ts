/**
 * The engine the bench's engine process runs (bench/engineProcess.ts), composed as
 * electron/engine/runEngine.ts composes it for `serve` and the app: the sync of the stored sources with
 * its spool in the data dir, the on-call layer warmed after every cycle, the alerts listening to the
 * sync, and the local API with the on-call layer and the tasks read-through. Not composed: the control
 * channel and the window's RPC (routes that hold nothing until called). Composed here rather than by
 * runEngine because the sync's `fetch` is the bench's (its records are sized, bench/receivedRecords.ts),
 * and runEngine takes none.
 */
import type { CycleEvent } from '../shared/sync';
import { DEFAULT_SETTINGS, incidentGapMs } from '../shared/settings';
import { Alerter } from '../electron/alerts/alerter';
import { type ApiServer, startApiServer } from '../electron/api/server';
import { overdueInTotal } from '../electron/engine/runEngine';
import { OnCallKnowledge } from '../electron/knowledge/service';
import type { Store } from '../electron/store/database';
import type { FetchLike } from '../electron/sync/client';
import type { SourceRunner } from '../electron/sync/runner';
import { envSecretKeeper } from '../electron/sync/secrets';
import { SourcesSync } from '../electron/sync/sourcesSync';

const DAY_MS = 24 * 3_600_000;

export interface BenchEngine {
  sync: SourcesSync;
  knowledge: OnCallKnowledge;
  alerts: Alerter;
  api: ApiServer;
  /** Starts the sync: its first cycle (a full crawl) begins at once; resolves when that cycle ends. */
  firstCycle(): Promise<CycleEvent>;
  /** The source's runner, once started. */
  runner(): SourceRunner;
  /** Resolves when the work every finished cycle sets off (the on-call layer's warm-up, the alerts) is done. */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

export async function startBenchEngine(options: {
  store: Store;
  dataDir: string;
  sourceId: string;
  now: () => Date;
  fetch: FetchLike;
}): Promise<BenchEngine> {
  const { store, now } = options;
  const settings = DEFAULT_SETTINGS;
  const sync = new SourcesSync({
    store,
    secrets: envSecretKeeper(process.env, { shared: true }),
    now,
    fetch: options.fetch,
    // Cycles after the first are run one by one by the caller: the runner's own timer must not start one
    // meanwhile (at 100k a checkpoint after the first sync outlasts the default minute).
    intervals: { pollMs: DAY_MS, crawlMs: DAY_MS },
    deliveriesPerDataset: settings.data.retentionDeliveries,
    incidentGapMs: incidentGapMs(settings),
    spool: { dir: options.dataDir },
  });
  const knowledge = new OnCallKnowledge({ store, now, sources: () => sync.states() });
  const problems: unknown[] = [];
  const alerts = new Alerter({
    store,
    sync,
    settings: () => settings,
    now,
    onError: (error) => problems.push(error),
    overdue: () => overdueInTotal(knowledge, sync.states()),
  });
  const api = await startApiServer({
    store,
    port: 0,
    now,
    logger: false,
    rateLimit: { perSecond: 1_000_000, burst: 2_000_000 },
    readThrough: sync.readThrough,
    knowledge,
  });
  alerts.start();
  // As runEngine: each finished cycle reads what changed into the history and precomputes the
  // Reliability view's default statistics.
  let warming: Promise<void> = Promise.resolve();
  const stopWarming = sync.onCycle((event) => {
    warming = knowledge.warm(event.orgId).catch((error: unknown) => void problems.push(error));
  });
  const failIfProblems = (): void => {
    if (problems.length === 0) return;
    const first = problems[0];
    throw new Error(
      `the engine reported a problem: ${first instanceof Error ? first.message : String(first)}`,
    );
  };
  return {
    sync,
    knowledge,
    alerts,
    api,
    firstCycle: () =>
      new Promise((resolve) => {
        const off = sync.onCycle((event) => {
          off();
          resolve(event);
        });
        sync.start();
      }),
    runner: () => {
      const runner = sync.runner(options.sourceId);
      if (!runner) throw new Error(`no runner for source ${options.sourceId}: is it stored and enabled?`);
      return runner;
    },
    settled: async () => {
      await warming;
      // The alerts evaluate in turn: a refresh queued now ends after the cycle's evaluation.
      await alerts.refresh();
      failIfProblems();
    },
    stop: async () => {
      await sync.stop();
      stopWarming();
      await warming;
      await alerts.stop();
      await api.close();
    },
  };
}
