/**
 * How the store reaches sql.js's file system (store/durability/sqlFiles.ts), pinned for the sql.js this
 * project locks: a database opened on a page file reads and writes only that file, SQLite sees its size
 * (stat) and cuts it (truncate) through it, and sql.js's own export reads it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadSqlJs } from '../../../../electron/store/database';
import { PageFile } from '../../../../electron/store/durability/pageFile';
import { newDatabase } from '../../../../electron/store/sqlJs';

const PAGE = 8192;
let root: string;
const files: PageFile[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dh-sqlfiles-'));
});

afterEach(() => {
  for (const file of files.splice(0)) file.close();
  rmSync(root, { recursive: true, force: true });
});

function pageFile(): PageFile {
  const file = PageFile.create(root, PAGE, null);
  files.push(file);
  return file;
}

const pageCount = (db: { exec(sql: string): { values: unknown[][] }[] }): number =>
  Number(db.exec('PRAGMA page_count')[0]!.values[0]![0]);

it('what SQLite writes lands in the page file, and sql.js export reads the same bytes back', async () => {
  const SQL = await loadSqlJs();
  const file = pageFile();
  const db = newDatabase(SQL, file);
  db.run('CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)');
  db.run('BEGIN');
  for (let i = 0; i < 3000; i++) db.run('INSERT INTO t VALUES (?, ?)', [i, `row ${i} ${'x'.repeat(100)}`]);
  db.run('COMMIT');
  expect(file.size).toBe(pageCount(db) * PAGE);
  const onDisk = new Uint8Array(file.size);
  file.read(onDisk, 0, file.size, 0);
  expect(Buffer.from(onDisk).includes(Buffer.from('row 2999 '))).toBe(true);

  // sql.js's export reads the file through the same operations: the page file, whole.
  const exported = db.export();
  expect(exported.length).toBe(file.size);
  const copy = new SQL.Database(exported);
  expect(copy.exec('SELECT count(*) FROM t')[0]!.values).toEqual([[3000]]);
  copy.close();
  db.close();
});

it('a rolled-back transaction that grew the file cuts the page file back: SQLite sees the size it set', async () => {
  const SQL = await loadSqlJs();
  const file = pageFile();
  const db = newDatabase(SQL, file);
  db.run('PRAGMA journal_mode = MEMORY');
  db.run('CREATE TABLE t (a INTEGER PRIMARY KEY, b BLOB)');
  db.run('INSERT INTO t VALUES (1, randomblob(100))');
  const before = file.size;
  db.run('BEGIN');
  for (let i = 2; i < 400; i++) db.run('INSERT INTO t VALUES (?, randomblob(20000))', [i]);
  expect(file.size).toBeGreaterThan(before);
  db.run('ROLLBACK');
  expect(file.size).toBe(before);
  expect(pageCount(db) * PAGE).toBe(before);
  expect(db.exec('PRAGMA quick_check')[0]!.values).toEqual([['ok']]);
  db.close();
});

it('a database reopened on the file it wrote reads every row', async () => {
  const SQL = await loadSqlJs();
  const file = pageFile();
  const db = newDatabase(SQL, file);
  db.run('CREATE TABLE t (a INTEGER PRIMARY KEY)');
  db.run('INSERT INTO t VALUES (1), (2), (3)');
  db.close();
  // A second database on the same page file: only what the file holds can answer.
  const again = newDatabase(SQL, file);
  expect(again.exec('SELECT sum(a) FROM t')[0]!.values).toEqual([[6]]);
  again.close();
});
