/** A reference org for one size: demo data loaded into a store on a real temp data dir, plus an API key. */
import { join } from 'node:path';
import { loadDemo } from '../electron/demo/load';
import { createApiKey } from '../electron/store/apiKeys';
import { Store } from '../electron/store/database';
import { makeTempDir } from './cleanup';

export const BENCH_ORG = 'bench';
/** Fixed, so every run measures the same data. */
export const BENCH_NOW = new Date('2026-11-21T04:41:00.000Z');
const SEED = 1;

export interface BenchOrg {
  size: number;
  root: string;
  /** The store's own data dir (the persist benchmark writes here). */
  dataDir: string;
  store: Store;
  orgId: string;
  apiKey: string;
  setupMs: number;
  firstWriteMs: number;
}

export async function createBenchOrg(size: number, log: (line: string) => void): Promise<BenchOrg> {
  const root = makeTempDir(`dataset-health-bench-${size}-`);
  const dataDir = join(root, 'store');
  const store = await Store.open({ dataDir });
  log(`generating ${size} datasets…`);
  const started = performance.now();
  loadDemo(store, { orgId: BENCH_ORG, datasets: size, seed: SEED, now: BENCH_NOW });
  const setupMs = performance.now() - started;
  const apiKey = createApiKey(store, BENCH_ORG, 'bench', BENCH_NOW).key;
  log(`  generated and imported in ${(setupMs / 1000).toFixed(1)} s; writing the data dir…`);
  const writeStarted = performance.now();
  await store.flush();
  const firstWriteMs = performance.now() - writeStarted;
  return { size, root, dataDir, store, orgId: BENCH_ORG, apiKey, setupMs, firstWriteMs };
}
