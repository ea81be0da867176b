/**
 * A reference org for one size: demo data loaded into a store on a real temp data dir, plus an API key,
 * persisted as the app would (the journal, then a checkpoint into the image) so later figures, cold
 * start first, begin from an image.
 */
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDemo } from '../electron/demo/load';
import { createApiKey } from '../electron/store/apiKeys';
import { Store } from '../electron/store/database';
import { DATABASE_FILE } from '../electron/store/files';
import { makeTempDir } from './cleanup';
import { bytes } from './report';

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
  /** The first flush: the whole org as one journal record (commit to fsynced), and its bytes. */
  firstWriteMs: number;
  firstWriteBytes: number;
  /** The checkpoint that folded it into the image, and the image's bytes. */
  checkpointMs: number;
  imageBytes: number;
  /** Why the image had to be written another way (the checkpoint lost data), or null. */
  persistProblem: string | null;
}

const databaseBytes = (store: Store): number =>
  Number(store.value<number>('PRAGMA page_count')) * Number(store.value<number>('PRAGMA page_size'));

/**
 * Checkpoints until every commit is in the image, which a copy of the image alone then holds. One call
 * may not do: a checkpoint the store started by itself (the org's commit passed the threshold) folds
 * only what was committed before it started, and `checkpoint()` joins it.
 */
async function foldEverything(store: Store): Promise<void> {
  const persistence = store.persistence!;
  for (let i = 0; i < 3 && (i === 0 || persistence.journalBytes > 0); i++) await persistence.checkpoint();
  if (persistence.journalBytes > 0)
    throw new Error('commits are still outside the image after 3 checkpoints');
}

export async function createBenchOrg(size: number, log: (line: string) => void): Promise<BenchOrg> {
  const root = makeTempDir(`dataset-health-bench-${size}-`);
  const dataDir = join(root, 'store');
  let store = await Store.open({ dataDir });
  log(`generating ${size} datasets…`);
  const started = performance.now();
  loadDemo(store, { orgId: BENCH_ORG, datasets: size, seed: SEED, now: BENCH_NOW });
  const setupMs = performance.now() - started;
  const apiKey = createApiKey(store, BENCH_ORG, 'bench', BENCH_NOW).key;
  log(`  generated and imported in ${(setupMs / 1000).toFixed(1)} s; writing the journal…`);
  const writeStarted = performance.now();
  await store.flush();
  const firstWriteMs = performance.now() - writeStarted;
  const persistence = store.persistence!;
  const firstWriteBytes = persistence.journalBytes;
  log(`  ${bytes(firstWriteBytes)} journal fsynced in ${(firstWriteMs / 1000).toFixed(1)} s; checkpoint…`);
  const checkpointStarted = performance.now();
  await foldEverything(store);
  const checkpointMs = performance.now() - checkpointStarted;
  const image = join(dataDir, DATABASE_FILE);
  let imageBytes = statSync(image).size;
  let persistProblem: string | null = null;
  const expected = databaseBytes(store);
  if (imageBytes < expected) {
    // The store dropped a committed transaction: measure the rest on an image written directly, the
    // way a database from before the journal is opened (and checkpointed at once).
    persistProblem = `the checkpoint wrote a ${bytes(imageBytes)} image of a ${bytes(expected)} database (a committed transaction was dropped); the rest runs on an exported image`;
    log(`  ${persistProblem}`);
    const exported = store.db.export();
    await store.close();
    for (const name of readdirSync(dataDir)) rmSync(join(dataDir, name), { force: true });
    writeFileSync(image, exported);
    store = await Store.open({ dataDir });
    await foldEverything(store);
    imageBytes = statSync(image).size;
  }
  return {
    size,
    root,
    dataDir,
    store,
    orgId: BENCH_ORG,
    apiKey,
    setupMs,
    firstWriteMs,
    firstWriteBytes,
    checkpointMs,
    imageBytes,
    persistProblem,
  };
}
