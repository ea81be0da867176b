/**
 * A data directory's database is read from disk, not held in memory (docs/storage.md "Memory"): the
 * process's memory does not grow with the database, neither while it is written nor when it is opened
 * again, and everything reads back. (sql.js alone keeps the whole file in one array: 0.9 GB at 100k
 * datasets, over the 800 MB budget by itself.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Store } from '../../../../electron/store/database';
import { MEMORY_BYTES } from '../../../../electron/store/durability/pageFile';

const MIB = 1024 * 1024;
/** The database written: well above the memory the test allows it to take. */
const DATABASE_MIB = 160;
/**
 * What may grow meanwhile: SQLite's page cache and heap (WebAssembly memory), a commit's journal
 * records, V8's heap (about 55 MiB in all, measured), and the page file's pages written since the last
 * checkpoint that it holds in memory (MEMORY_BYTES, 32 MiB); with the database in memory, 160 MiB more.
 */
const ALLOWED_GROWTH_MIB = 55 + MEMORY_BYTES / 2 ** 20 + 35;
const ROW_BYTES = 100_000;

let root: string;
const stores: Store[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dh-ondisk-'));
});

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => {});
  rmSync(root, { recursive: true, force: true });
});

/** The process's resident memory: what the budgets count. */
const resident = (): number => process.memoryUsage.rss();

it('a database larger than the memory it may take is written, reopened and read back whole', async () => {
  const dir = join(root, 'data');
  const store = await Store.open({ dataDir: dir });
  stores.push(store);
  store.run('CREATE TABLE ballast (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)');
  const before = resident();
  const rows = (DATABASE_MIB * MIB) / ROW_BYTES;
  let peak = before;
  for (let first = 0; first < rows; first += 100) {
    store.transaction(() => {
      for (let id = first; id < Math.min(rows, first + 100); id++)
        store.run('INSERT INTO ballast VALUES (?, randomblob(?))', [id, ROW_BYTES]);
    });
    await store.flush();
    peak = Math.max(peak, resident());
  }
  const pages = Number(store.value('PRAGMA page_count')) * Number(store.value('PRAGMA page_size'));
  expect(pages).toBeGreaterThan(DATABASE_MIB * MIB);
  expect((peak - before) / MIB).toBeLessThan(ALLOWED_GROWTH_MIB);
  const sum = store.value('SELECT sum(length(payload)) FROM ballast');
  await store.persistence!.checkpoint();
  await store.close();
  stores.length = 0;

  const opening = resident();
  const reopened = await Store.open({ dataDir: dir });
  stores.push(reopened);
  expect(reopened.value('PRAGMA quick_check')).toBe('ok');
  expect(reopened.value('SELECT sum(length(payload)) FROM ballast')).toBe(sum);
  expect((resident() - opening) / MIB).toBeLessThan(ALLOWED_GROWTH_MIB);
});

it('a transaction that grew the file and rolled back leaves it as it was, on disk as in SQLite', async () => {
  const dir = join(root, 'data');
  const store = await Store.open({ dataDir: dir });
  stores.push(store);
  store.run('CREATE TABLE item (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)');
  store.run('INSERT INTO item VALUES (1, randomblob(1000))');
  const size = Number(store.value('PRAGMA page_count'));
  expect(() =>
    store.transaction(() => {
      for (let id = 2; id < 500; id++) store.run('INSERT INTO item VALUES (?, randomblob(10000))', [id]);
      throw new Error('refused');
    }),
  ).toThrow('refused');
  expect(Number(store.value('PRAGMA page_count'))).toBe(size);
  store.run('INSERT INTO item VALUES (2, randomblob(1000))');
  await store.close();
  stores.length = 0;

  const reopened = await Store.open({ dataDir: dir });
  stores.push(reopened);
  expect(reopened.value('PRAGMA quick_check')).toBe('ok');
  expect(reopened.column('SELECT id FROM item ORDER BY id')).toEqual([1, 2]);
});
