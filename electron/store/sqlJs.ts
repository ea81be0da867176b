/** sql.js, loaded once per process with the page capture the journal needs, and opening checked bytes. */
import { createRequire } from 'node:module';
import initSqlJs, { type Database, type SqlJsStatic } from 'sql.js';
import type { OpenFile, OpenResult } from './durability/opening';
import { PageFile } from './durability/pageFile';
import { installPageCapture, openPaged } from './durability/sqlFiles';

let sqlJs: Promise<SqlJsStatic> | undefined;

/** Loads the sql.js WebAssembly module once per process. */
export function loadSqlJs(): Promise<SqlJsStatic> {
  const require = createRequire(import.meta.url);
  sqlJs ??= initSqlJs({ locateFile: (file: string) => require.resolve(`sql.js/dist/${file}`) }).then(
    (SQL) => {
      installPageCapture(SQL);
      return SQL;
    },
  );
  return sqlJs;
}

/** A new, empty database: in memory, or in `file` (a data directory's, on disk). */
export function newDatabase(SQL: SqlJsStatic, file?: PageFile): Database {
  const db = file ? openPaged(file, (bytes) => new SQL.Database(bytes)) : new SQL.Database();
  // Larger pages for a new database: fewer records and page headers per change.
  db.run(`PRAGMA page_size = ${NEW_PAGE_SIZE}`);
  return db;
}

/** The page size of a database the store creates. */
export const NEW_PAGE_SIZE = 8192;

/** A new, empty database for a data directory: in a new page file there, on disk. */
export function newPagedDatabase(SQL: SqlJsStatic, dataDir: string): { db: Database; file: PageFile } {
  const file = PageFile.create(dataDir, NEW_PAGE_SIZE, null);
  try {
    return { db: newDatabase(SQL, file), file };
  } catch (error) {
    file.close();
    throw error;
  }
}

/** The settings every store's database runs with. */
export function configure(db: Database): Database {
  db.run('PRAGMA foreign_keys = ON');
  // The database lives in memory and reaches disk through the journal, whose records are the pages
  // SQLite writes; a rollback journal in the in-memory file system would only copy them twice.
  db.run('PRAGMA journal_mode = MEMORY');
  db.run('PRAGMA temp_store = MEMORY');
  // Pages not in SQLite's cache are copied from the in-memory file on every read: keep the hot ones
  // (8 MiB; the WebAssembly heap never shrinks, so more would stay with the process for good).
  db.run('PRAGMA cache_size = -8192');
  return db;
}

/**
 * The database in `file`, opened and checked (`PRAGMA quick_check`, unless `verified`: its checksum
 * matched the one its checkpoint wrote), or why it cannot be used. The database owns `file` once
 * opened; on a problem the caller still does.
 */
export function openChecked(SQL: SqlJsStatic, file: PageFile, verified = false): OpenResult<Database> {
  const header = new Uint8Array(15);
  file.read(header, 0, 15, 0);
  if (new TextDecoder().decode(header) !== 'SQLite format 3') return { problem: 'not a SQLite file' };
  let db: Database | undefined;
  try {
    db = openPaged(file, (bytes) => new SQL.Database(bytes));
    if (verified) return { opened: db };
    const verdict = db.exec('PRAGMA quick_check')[0]?.values[0]?.[0];
    if (verdict === 'ok') return { opened: db };
    db.close();
    return { problem: `integrity check failed: ${String(verdict)}` };
  } catch (error) {
    db?.close();
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Opens a data directory's database file once sql.js has loaded: it loads while the journal replays
 * (the replay does not need it), which hides the background compiles its first use sets off.
 */
export function openWhenLoaded(loading: Promise<SqlJsStatic>): OpenFile<{ db: Database; file: PageFile }> {
  return async (file, verified) => {
    const result = openChecked(await loading, file, verified);
    return 'problem' in result ? result : { opened: { db: result.opened, file } };
  };
}
