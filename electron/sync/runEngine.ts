/**
 * The running engine as both the app and `serve` start it: the sync loop of every enabled source (or,
 * with none configured and `demoWhenNoSources`, the built-in demo: a simulated remote in-process),
 * and the local API reading through to the remotes for tasks never synced. Stopping stops the sync
 * first (a commit in progress rolls back), then the API, then the demo remote.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { RateLimitOptions } from '../api/app';
import { type ApiServer, startApiServer } from '../api/server';
import { type BuiltInDemo, DEMO_INTERVALS, startBuiltInDemo } from '../demo/remote/builtIn';
import type { Store } from '../store/database';
import { listSources } from '../store/sources';
import { SyncEngine, type SyncEngineOptions } from './engine';
import type { SecretStore } from './secrets';

export interface EngineOptions {
  store: Store;
  port: number;
  now: () => Date;
  secrets: SecretStore;
  logger?: FastifyBaseLogger | false;
  rateLimit?: RateLimitOptions;
  intervals?: SyncEngineOptions['intervals'];
  /** With no source configured, mirror the built-in demo (the app; `serve --demo`). */
  demoWhenNoSources: boolean;
}

export interface RunningEngine {
  api: ApiServer;
  sync: SyncEngine;
  /** The built-in demo, when it runs. */
  demo: BuiltInDemo | undefined;
  stop(): Promise<void>;
}

export async function runEngine(options: EngineOptions): Promise<RunningEngine> {
  const { store } = options;
  const demo =
    options.demoWhenNoSources && listSources(store).length === 0
      ? await startBuiltInDemo({ now: options.now })
      : undefined;
  const sync = new SyncEngine({
    store,
    secrets: options.secrets,
    now: options.now,
    intervals: options.intervals,
    builtIn: demo ? [{ source: demo.source, apiKey: demo.apiKey, intervals: DEMO_INTERVALS }] : [],
  });
  let api: ApiServer;
  try {
    api = await startApiServer({
      store,
      port: options.port,
      now: options.now,
      logger: options.logger,
      rateLimit: options.rateLimit,
      readThrough: sync.readThrough,
    });
  } catch (error) {
    await demo?.close();
    throw error;
  }
  sync.start();
  return {
    api,
    sync,
    demo,
    async stop() {
      await sync.stop();
      await api.close();
      await demo?.close();
    },
  };
}
