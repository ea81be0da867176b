/**
 * The database file's memory (store/durability/fileStorage.ts): an image opened at start becomes the file's
 * storage itself (no second copy), and grows in place as the database grows (no copy of the whole
 * file per growth), with the file system's own behaviour kept for everything else.
 */
import { expect, it } from 'vitest';
import { loadSqlJs } from '../../../../electron/store/database';
import { growableBuffer, shrink } from '../../../../electron/store/durability/fileStorage';
import { PageCapture, openAdopting } from '../../../../electron/store/durability/pageCapture';

const PAGE = 8192;

async function imageOf(rows: number): Promise<Uint8Array> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.run(`PRAGMA page_size = ${PAGE}`);
  db.run('CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)');
  db.run('BEGIN');
  for (let i = 0; i < rows; i++) db.run('INSERT INTO t VALUES (?, ?)', [i, 'x'.repeat(200)]);
  db.run('COMMIT');
  const bytes = db.export();
  db.close();
  return bytes;
}

it('an adopted image is the file: what SQLite writes lands in the very buffer, which grows in place', async () => {
  const SQL = await loadSqlJs();
  const image = await imageOf(200);
  const bytes = growableBuffer(image.length);
  bytes.set(image);
  const db = openAdopting(bytes, () => new SQL.Database(bytes));
  db.run('PRAGMA journal_mode = MEMORY');
  const capture = PageCapture.watch(SQL, db, PAGE, 0);

  db.run("UPDATE t SET b = 'written through' WHERE a = 7");
  expect(Buffer.from(bytes).includes(Buffer.from('written through'))).toBe(true);

  const before = bytes.length;
  db.run('BEGIN');
  for (let i = 200; i < 5000; i++)
    db.run('INSERT INTO t VALUES (?, ?)', [i, `grown ${i} ${'y'.repeat(200)}`]);
  db.run('COMMIT');
  const pages = Number(db.exec('PRAGMA page_count')[0]!.values[0]![0]);
  // Same buffer, longer: resized in place rather than replaced by a copy.
  expect(bytes.length).toBeGreaterThanOrEqual(pages * PAGE);
  expect(bytes.length).toBeGreaterThan(before);
  expect(Buffer.from(bytes).includes(Buffer.from('grown 4999 '))).toBe(true);
  expect(db.exec('PRAGMA quick_check')[0]!.values).toEqual([['ok']]);
  capture.stop();
  db.close();
});

it("a new database's file moves into growable storage at its first write and keeps growing in place", async () => {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.run(`PRAGMA page_size = ${PAGE}`);
  db.run('PRAGMA journal_mode = MEMORY');
  const capture = PageCapture.watch(SQL, db, PAGE, 0);
  db.run('CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)');
  db.run('BEGIN');
  for (let i = 0; i < 20_000; i++) db.run('INSERT INTO t VALUES (?, ?)', [i, 'z'.repeat(300)]);
  db.run('COMMIT');
  // Every page reads back as written: the storage swap lost nothing.
  const pending = capture.commit(Number(db.exec('PRAGMA page_count')[0]!.values[0]![0]))!;
  const rebuilt = new Uint8Array(Number(db.exec('PRAGMA page_count')[0]!.values[0]![0]) * PAGE);
  for (const pgno of pending.pgnos) capture.readCommitted(pending, pgno, rebuilt, (pgno - 1) * PAGE);
  const copy = new SQL.Database(rebuilt);
  expect(copy.exec('SELECT count(*), sum(length(b)) FROM t')[0]!.values).toEqual([[20_000, 6_000_000]]);
  copy.close();
  capture.stop();
  db.close();
});

it('shrink cuts a growable buffer in place', () => {
  const bytes = growableBuffer(3 * PAGE);
  bytes[PAGE] = 9;
  const cut = shrink(bytes, 2 * PAGE);
  expect(cut).toBe(bytes);
  expect(bytes.length).toBe(2 * PAGE);
  expect(bytes[PAGE]).toBe(9);
});
