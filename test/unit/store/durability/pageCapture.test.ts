/**
 * The page capture the journal is built on (store/durability/pageCapture.ts): with the sql.js this project pins,
 * every page SQLite writes is seen, so pages alone rebuild the database; a write that is not a whole
 * page is never silently lost (the commitWriter writes a whole image instead).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Database, SqlJsStatic } from 'sql.js';
import { Store, loadSqlJs } from '../../../../electron/store/database';
import { PageCapture } from '../../../../electron/store/durability/pageCapture';
import { PageFile } from '../../../../electron/store/durability/pageFile';
import { newDatabase } from '../../../../electron/store/sqlJs';

let root: string;
const stores: Store[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dh-capture-'));
});

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => {});
  for (const file of files.splice(0)) file.close();
  rmSync(root, { recursive: true, force: true });
});

const files: PageFile[] = [];

/** A database kept in a page file, as a data directory's is, and the file. */
function pagedDatabase(SQL: SqlJsStatic): { db: Database; file: PageFile } {
  const file = PageFile.create(root, 8192, null);
  files.push(file);
  return { db: newDatabase(SQL, file), file };
}

it('the pages written, laid at their offsets, are the database: same rows, quick_check ok', async () => {
  const SQL = await loadSqlJs();
  const { db, file } = pagedDatabase(SQL);
  db.run('PRAGMA journal_mode = MEMORY');
  // A tiny cache: SQLite spills pages before the commit, and a rollback writes originals back.
  db.run('PRAGMA cache_size = -64');
  const capture = PageCapture.watch(SQL, db, file, 8192, 0);
  const image = new Map<number, Uint8Array>();
  const keep = () => {
    const pending = capture.commit(Number(db.exec('PRAGMA page_count')[0]!.values[0]![0]));
    for (const pgno of pending?.pgnos ?? []) {
      const page = new Uint8Array(8192);
      capture.readCommitted(pending!, pgno, page, 0);
      image.set(pgno, page);
    }
  };
  db.run('CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)');
  db.run('CREATE INDEX t_b ON t (b)');
  db.run('BEGIN');
  for (let i = 0; i < 5000; i++) db.run('INSERT INTO t VALUES (?, ?)', [i, `${'x'.repeat(100)}${i}`]);
  db.run('COMMIT');
  keep();
  db.run('BEGIN');
  db.run('DELETE FROM t WHERE a < 4000');
  db.run('ROLLBACK');
  db.run("UPDATE t SET b = 'changed' WHERE a % 7 = 0");
  keep();
  capture.stop();

  const pages = Number(db.exec('PRAGMA page_count')[0]!.values[0]![0]);
  const bytes = new Uint8Array(pages * 8192);
  for (const [pgno, page] of image) if (pgno <= pages) bytes.set(page, (pgno - 1) * 8192);
  const rebuilt = new SQL.Database(bytes);
  expect(rebuilt.exec('PRAGMA quick_check')[0]!.values).toEqual([['ok']]);
  const rows = (d: typeof db) => d.exec("SELECT count(*), sum(b = 'changed'), sum(a) FROM t")[0]!.values;
  expect(rows(rebuilt)).toEqual(rows(db));
  expect(capture.unexpected).toBeUndefined();
  rebuilt.close();
  db.close();
});

it("a commit's pages read later are as of that commit, even after later transactions rewrote them", async () => {
  const SQL = await loadSqlJs();
  const { db, file } = pagedDatabase(SQL);
  db.run('PRAGMA journal_mode = MEMORY');
  const capture = PageCapture.watch(SQL, db, file, 8192, 0);
  db.run('CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)');
  db.run('BEGIN');
  for (let i = 0; i < 2000; i++) db.run('INSERT INTO t VALUES (?, ?)', [i, `first ${i}`]);
  db.run('COMMIT');
  const first = capture.commit(Number(db.exec('PRAGMA page_count')[0]!.values[0]![0]))!;
  // The file as of the first commit, page by page (page 1's header counters aside, the same bytes).
  const asOfFirst = db.export();
  db.run("UPDATE t SET b = 'second ' || a");
  const second = capture.commit(Number(db.exec('PRAGMA page_count')[0]!.values[0]![0]))!;
  expect(second.pgnos.filter((pgno) => first.pgnos.includes(pgno)).length).toBeGreaterThan(5);

  for (const pgno of first.pgnos.filter((n) => n > 1)) {
    const page = new Uint8Array(8192);
    capture.readCommitted(first, pgno, page, 0);
    expect(
      Buffer.from(page).equals(Buffer.from(asOfFirst.subarray((pgno - 1) * 8192, pgno * 8192))),
      `page ${pgno}`,
    ).toBe(true);
  }
  capture.stop();
  db.close();
});

it('a write that is not whole pages: the next checkpoint writes an export of the database, and nothing is lost', async () => {
  const dir = join(root, 'data');
  const errors: string[] = [];
  const store = await Store.open({
    dataDir: dir,
    debounceMs: 10_000,
    log: { warn: () => {}, error: (m) => errors.push(m) },
  });
  stores.push(store);
  store.run('CREATE TABLE note (text TEXT)');
  store.run("INSERT INTO note VALUES ('before')");
  // What a future sql.js might do: a write the journal cannot describe as pages.
  const capture = (store as unknown as { commitWriter: { capture: PageCapture } }).commitWriter.capture;
  capture.record(10, 5);
  store.run("INSERT INTO note VALUES ('after')");
  await store.persistence!.checkpoint();
  expect(errors).toEqual([
    expect.stringMatching(/journal cannot record a write of 10 bytes at 5.*whole image/),
  ]);

  const copy = join(root, 'copy');
  cpSync(dir, copy, { recursive: true });
  const reopened = await Store.open({ dataDir: copy });
  stores.push(reopened);
  expect(reopened.column('SELECT text FROM note ORDER BY rowid')).toEqual(['before', 'after']);
});
