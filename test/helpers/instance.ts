/**
 * `serve` as its command runs it, in-process: the data directory's lock, the store on disk, the engine
 * with its local API and control channel — so CLI commands run in the same test find a running instance.
 */
import { type RunningEngine, runEngine } from '../../electron/engine/runEngine';
import { Store } from '../../electron/store/database';
import type { OpenJournalFile } from '../../electron/store/durability/journal';
import { acquireDataDirLock } from '../../electron/store/instance/lock';
import { memorySettings } from '../../electron/store/tables/settings';
import { envSecretKeeper } from '../../electron/sync/secrets';

export interface Instance {
  engine: RunningEngine;
  store: Store;
  /** Stops the engine, persists, releases the directory; calling it again does nothing. */
  stop(): Promise<void>;
}

const running = new Set<Instance>();

export async function startInstance(
  dataDir: string,
  options: {
    now: () => Date;
    ui?: boolean;
    remoteKeys?: NodeJS.ProcessEnv;
    /** How the store opens its journal files (test/helpers/fullDisk.ts: a disk that fills). */
    openJournal?: OpenJournalFile;
  },
): Promise<Instance> {
  const lock = acquireDataDirLock(dataDir, { purpose: 'serve', now: options.now });
  const store = await Store.open({ dataDir, openJournal: options.openJournal });
  const engine = await runEngine({
    purpose: 'serve',
    store,
    dataDir,
    settings: memorySettings(),
    port: 0,
    now: options.now,
    secrets: envSecretKeeper(options.remoteKeys ?? {}),
    logger: false,
    demoWhenNoSources: false,
    ui: options.ui === true,
  });
  let stopped = false;
  const instance: Instance = {
    engine,
    store,
    async stop() {
      if (stopped) return;
      stopped = true;
      running.delete(instance);
      await engine.stop();
      await store.close();
      lock.release();
    },
  };
  running.add(instance);
  return instance;
}

/** Stops every instance a test started (call in afterEach/afterAll). */
export async function stopInstances(): Promise<void> {
  await Promise.all([...running].map((instance) => instance.stop()));
}
