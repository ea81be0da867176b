/**
 * A reference org for one size: demo data loaded into a store on a real temp data dir, plus an API key,
 * persisted as the app would (the journal, then a checkpoint into the image) so later figures, cold
 * start first, begin from an image.
 */
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { loadDemo } from '../electron/demo/load';
import { createApiKey } from '../electron/store/tables/apiKeys';
import { Store } from '../electron/store/database';
import { DATABASE_FILE } from '../electron/store/durability/files';
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
  /** Why the image had to be written another way (flush and checkpoint lost data), or null. */
  persistProblem: string | null;
}

/** Tables whose rows the image alone must hold for the figures that copy it (serve's list, its key). */
const CHECKED = ['datasets', 'api_keys'] as const;

/**
 * Whether the image file alone holds the org as the store has it, read by native SQLite (another
 * reader than the one that wrote it): null when it does, else what is wrong.
 */
function imageProblem(image: string, store: Store, orgId: string): string | null {
  const count = (table: string): string => `SELECT count(*) AS n FROM ${table} WHERE org_id = ?`;
  let db: Database.Database | undefined;
  try {
    db = new Database(image, { readonly: true, fileMustExist: true });
    const wrong = CHECKED.flatMap((table) => {
      const expected = Number(store.value<number>(count(table), [orgId]));
      const found = (db!.prepare(count(table)).get(orgId) as { n: number }).n;
      return found === expected ? [] : [`${found} of ${expected} ${table} rows`];
    });
    return wrong.length === 0 ? null : `the image holds ${wrong.join(' and ')}`;
  } catch (error) {
    return `the image does not read (${(error as Error).message})`;
  } finally {
    db?.close();
  }
}

/**
 * Checkpoints until every commit is in the image, which a copy of the image alone then holds. One call
 * may not do: a checkpoint the store started by itself (the org's commit passed the threshold) folds
 * only what was committed before it started, and `checkpoint()` joins it.
 */
export async function foldEverything(store: Store): Promise<void> {
  const persistence = store.persistence!;
  for (let i = 0; i < 3 && (i === 0 || persistence.journalBytes > 0); i++) await persistence.checkpoint();
  if (persistence.journalBytes > 0)
    throw new Error('commits are still outside the image after 3 checkpoints');
}

export interface BenchOrgOptions {
  /** Delivery events generated per dataset (default: the demo's 30). */
  deliveriesPerDataset?: number;
}

export async function createBenchOrg(
  size: number,
  log: (line: string) => void,
  options: BenchOrgOptions = {},
): Promise<BenchOrg> {
  const { deliveriesPerDataset } = options;
  const root = makeTempDir(
    `dataset-health-bench-${size}${deliveriesPerDataset ? `x${deliveriesPerDataset}` : ''}-`,
  );
  const dataDir = join(root, 'store');
  let store = await Store.open({ dataDir });
  const each = deliveriesPerDataset === undefined ? '' : ` with ${deliveriesPerDataset} deliveries each`;
  log(`generating ${size} datasets${each}…`);
  const started = performance.now();
  loadDemo(store, { orgId: BENCH_ORG, datasets: size, seed: SEED, now: BENCH_NOW, deliveriesPerDataset });
  const setupMs = performance.now() - started;
  const apiKey = createApiKey(store, BENCH_ORG, 'bench', BENCH_NOW).key;
  log(`  generated and imported in ${(setupMs / 1000).toFixed(1)} s; writing the journal…`);
  const writeStarted = performance.now();
  await store.flush();
  const firstWriteMs = performance.now() - writeStarted;
  const persistence = store.persistence!;
  const firstWriteBytes = persistence.stats.journalBytes;
  log(`  ${bytes(firstWriteBytes)} journal fsynced in ${(firstWriteMs / 1000).toFixed(1)} s; checkpoint…`);
  const checkpointStarted = performance.now();
  await foldEverything(store);
  const checkpointMs = performance.now() - checkpointStarted;
  const image = join(dataDir, DATABASE_FILE);
  let imageBytes = statSync(image).size;
  let persistProblem = imageProblem(image, store, BENCH_ORG);
  if (persistProblem !== null) {
    // The store lost committed data: the rest is measured on an image written directly, the way a
    // database from before the journal is opened (and checkpointed at once).
    persistProblem = `after flush and checkpoint, ${persistProblem}; the rest runs on an exported image`;
    log(`  ${persistProblem}`);
    const exported = store.db.export();
    await store.close();
    for (const name of readdirSync(dataDir)) rmSync(join(dataDir, name), { force: true });
    writeFileSync(image, exported);
    store = await Store.open({ dataDir });
    await foldEverything(store);
    const still = imageProblem(image, store, BENCH_ORG);
    if (still !== null) throw new Error(`setup: even an exported image does not hold the org: ${still}`);
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
