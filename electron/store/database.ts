/**
 * The store: one sql.js database per data directory, migrated on open, written in transactions and
 * persisted after each committed change (debounced, atomic; DESIGN.md §3).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import initSqlJs, {
  type BindParams,
  type Database,
  type SqlJsStatic,
  type SqlValue,
  type Statement,
} from 'sql.js';
import { MIGRATIONS } from './migrations';
import { type LoadedDatabase, type OpenResult, readDatabaseFile, writeDatabaseFile } from './persistence';

export interface StoreLogger {
  warn(message: string): void;
  error(message: string): void;
}

export interface StoreOptions {
  /** Folder holding `health.sqlite`; null keeps the database in memory only (tests, benchmarks). */
  dataDir: string | null;
  /** How long after a commit the file is written; commits within the window share one write. */
  debounceMs?: number;
  log?: StoreLogger;
}

export const DEFAULT_DEBOUNCE_MS = 250;

let sqlJs: Promise<SqlJsStatic> | undefined;
/** Loads the sql.js WebAssembly module once per process. */
export function loadSqlJs(): Promise<SqlJsStatic> {
  const require = createRequire(import.meta.url);
  sqlJs ??= initSqlJs({ locateFile: (file: string) => require.resolve(`sql.js/dist/${file}`) });
  return sqlJs;
}

export type Row = Record<string, SqlValue>;

export interface TransactionOptions {
  /** False for bookkeeping the API does not serve (a key's last-used time): ETags and cached pages stay. */
  dataChange?: boolean;
  /**
   * 'soon' (default): saved a debounce window after the commit. 'later': saved with the next save or at
   * `requestSave`/close — for data that can be fetched again (a sync cycle asks for one save when it
   * ends, instead of one in the middle of its work).
   */
  persist?: 'soon' | 'later';
}

/** Thrown when the store is used while a chunked transaction holds it without waiting (`whenIdle`). */
export class StoreBusyError extends Error {
  constructor() {
    super('the store is busy with a chunked transaction (a sync commit); wait with store.whenIdle()');
    this.name = 'StoreBusyError';
  }
}

/** Runs one slice of a chunked transaction's work (see `Store.transactionInChunks`). */
export type ChunkRunner = <R>(slice: () => R) => Promise<R>;

/** Lets timers and I/O callbacks run between two slices of work (a macrotask, unlike a microtask). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class Store {
  private readonly statements = new Map<string, Statement>();
  private depth = 0;
  private readonly rollbackListeners = new Set<() => void>();
  /** Whether the transaction in progress changes data the API serves (see `transaction`). */
  private dataChange = false;
  /** Whether it may be saved later (see `TransactionOptions.persist`): all of a nested one must agree. */
  private persistLater = false;
  /** Commits not yet exported for a write. */
  private dirty = false;
  /** The debounce timer: started by the first commit after a write is queued, never pushed back. */
  private timer: NodeJS.Timeout | undefined;
  /** The last write queued; settles (never rejects) when it is done: writes run one at a time. */
  private writes: Promise<void> = Promise.resolve();
  /** A write queued but not started: it will export whatever is committed by the time it starts. */
  private nextWrite: Promise<void> | undefined;
  private closed = false;
  private revision = 0;
  /** Settles when the chunked transaction in progress ends; undefined when none is open. */
  private held: Promise<void> | undefined;
  /** True while a slice of the chunked transaction runs: only then may the store be used. */
  private inSlice = false;
  /** Differs per process, so an ETag from an earlier run never matches a new body. */
  readonly bootId = randomUUID().slice(0, 8);

  private constructor(
    readonly db: Database,
    private readonly options: Required<Omit<StoreOptions, 'dataDir'>> & { dataDir: string | null },
  ) {}

  static async open(options: StoreOptions): Promise<Store> {
    const SQL = await loadSqlJs();
    const log = options.log ?? { warn: () => {}, error: () => {} };
    let loaded: LoadedDatabase<Database> = { opened: null, source: 'none', warnings: [] };
    if (options.dataDir !== null) {
      mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
      loaded = await readDatabaseFile(options.dataDir, (bytes) => openChecked(SQL, bytes));
      for (const warning of loaded.warnings) log.warn(`${options.dataDir}: ${warning}`);
    }
    let db = loaded.opened;
    if (!db) {
      db = new SQL.Database();
      // Larger pages for a new database: fewer pages to copy on every save (about a fifth faster at 10k).
      db.run('PRAGMA page_size = 8192');
    }
    db.run('PRAGMA foreign_keys = ON');
    // The database lives in memory and reaches disk only through persistence.ts (atomic file swaps), so a
    // rollback journal in the in-memory file system would only copy pages twice: keep it in memory.
    db.run('PRAGMA journal_mode = MEMORY');
    db.run('PRAGMA temp_store = MEMORY');
    // Pages not in SQLite's cache are copied from the in-memory file on every read: keep the hot ones
    // (8 MiB; the WebAssembly heap never shrinks, so more would stay with the process for good).
    db.run('PRAGMA cache_size = -8192');
    const store = new Store(db, { ...options, debounceMs: options.debounceMs ?? DEFAULT_DEBOUNCE_MS, log });
    try {
      store.migrate();
    } catch (error) {
      db.close();
      throw error;
    }
    // Opened from the backup: write the main file again soon, even if nothing changes.
    if (loaded.source === 'backup') store.changed();
    return store;
  }

  /** Monotonic counter of committed data changes: part of every ETag. */
  get dataRevision(): string {
    return `${this.bootId}.${this.revision}`;
  }

  /**
   * Runs `fn` in one transaction: all of it commits, or none (nested calls join the outer one). A commit
   * renews `dataRevision` (ETags, cached pages) unless it only did bookkeeping (`dataChange: false`,
   * e.g. a key's last-used time); it is persisted either way.
   */
  transaction<T>(fn: () => T, options: TransactionOptions = {}): T {
    const dataChange = options.dataChange ?? true;
    this.checkFree();
    if (this.depth > 0) {
      this.dataChange ||= dataChange;
      this.persistLater &&= options.persist === 'later';
      return this.nested(fn);
    }
    this.begin(options);
    try {
      const result = fn();
      this.commit();
      return result;
    } catch (error) {
      this.rollback();
      throw error;
    } finally {
      this.depth = 0;
    }
  }

  /**
   * One transaction whose work runs in slices with the event loop free between them, so a large commit
   * (a sync of thousands of datasets) never stalls the tray, the window or the API for long. It commits
   * whole or not at all. While it is open, everyone else waits through `whenIdle`: a read between two
   * slices would see a half-written sync, so any other use of the store throws `StoreBusyError`.
   */
  async transactionInChunks<T>(
    work: (slice: ChunkRunner) => Promise<T>,
    options: TransactionOptions = {},
  ): Promise<T> {
    while (this.held) await this.held;
    this.checkFree();
    let release!: () => void;
    this.held = new Promise((resolve) => (release = resolve));
    this.begin(options);
    const slice: ChunkRunner = async (fn) => {
      await nextTurn();
      this.inSlice = true;
      try {
        return fn();
      } finally {
        this.inSlice = false;
      }
    };
    try {
      const result = await work(slice);
      this.commit();
      return result;
    } catch (error) {
      this.rollback();
      throw error;
    } finally {
      this.depth = 0;
      this.held = undefined;
      release();
    }
  }

  /**
   * Runs `fn` once no chunked transaction is open. The check and the call happen in one synchronous step,
   * so nothing can begin in between: every asynchronous user of the store (API requests, saves,
   * read-through writes) goes through here.
   */
  async whenIdle<T>(fn: () => T): Promise<T> {
    while (this.held) await this.held;
    return fn();
  }

  /** A chunked transaction is open and the caller is not one of its slices. */
  get busy(): boolean {
    return this.held !== undefined && !this.inSlice;
  }

  private checkFree(): void {
    if (this.busy) throw new StoreBusyError();
  }

  private begin(options: TransactionOptions): void {
    this.db.run('BEGIN IMMEDIATE');
    this.depth = 1;
    this.dataChange = options.dataChange ?? true;
    this.persistLater = options.persist === 'later';
  }

  private rollback(): void {
    this.db.run('ROLLBACK');
    for (const listener of this.rollbackListeners) listener();
  }

  private commit(): void {
    this.db.run('COMMIT');
    if (this.dataChange) this.revision += 1;
    if (this.persistLater) this.dirty ||= this.options.dataDir !== null;
    else this.changed();
  }

  /** Saves what is committed and not yet saved (after the debounce window), e.g. at the end of a sync cycle. */
  requestSave(): void {
    if (this.dirty) this.changed();
  }

  /** Calls `listener` after every rollback: caches of what a rolled-back write inserted must go. */
  onRollback(listener: () => void): void {
    this.rollbackListeners.add(listener);
  }

  private nested<T>(fn: () => T): T {
    this.depth += 1;
    try {
      return fn();
    } finally {
      this.depth -= 1;
    }
  }

  all(sql: string, params: BindParams = []): Row[] {
    this.checkFree();
    const statement = this.statement(sql);
    try {
      statement.bind(params);
      const rows: Row[] = [];
      while (statement.step()) rows.push(statement.getAsObject());
      return rows;
    } finally {
      statement.reset();
    }
  }

  /** First column of every row: the cheapest way to read one value per row. */
  column<T extends SqlValue>(sql: string, params: BindParams = []): T[] {
    this.checkFree();
    const statement = this.statement(sql);
    try {
      statement.bind(params);
      const values: T[] = [];
      while (statement.step()) values.push(statement.get()[0] as T);
      return values;
    } finally {
      statement.reset();
    }
  }

  /** Calls `visit` with the first column of each row, one row at a time (for results too big to hold). */
  eachValue<T extends SqlValue>(sql: string, params: BindParams, visit: (value: T) => void): number {
    this.checkFree();
    const statement = this.statement(sql);
    let count = 0;
    try {
      statement.bind(params);
      while (statement.step()) {
        visit(statement.get()[0] as T);
        count += 1;
      }
    } finally {
      statement.reset();
    }
    return count;
  }

  /** Calls `visit` with each row as an array of its columns (cheaper than objects for many rows). */
  eachRow(sql: string, params: BindParams, visit: (row: SqlValue[]) => void): number {
    this.checkFree();
    const statement = this.statement(sql);
    let count = 0;
    try {
      statement.bind(params);
      while (statement.step()) {
        visit(statement.get());
        count += 1;
      }
    } finally {
      statement.reset();
    }
    return count;
  }

  get(sql: string, params: BindParams = []): Row | undefined {
    return this.all(sql, params)[0];
  }

  value<T extends SqlValue>(sql: string, params: BindParams = []): T | undefined {
    return this.column<T>(sql, params)[0];
  }

  /** Runs a write; outside a transaction it is its own transaction. */
  run(sql: string, params: BindParams = []): number {
    this.checkFree();
    if (this.depth === 0) return this.transaction(() => this.run(sql, params));
    const statement = this.statement(sql);
    try {
      statement.run(params);
    } finally {
      statement.reset();
    }
    return this.db.getRowsModified();
  }

  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Resolves once everything committed so far is on disk (waiting for a write in progress). Rejects
   * when the write fails; the data stays in memory and the next commit or flush tries again.
   */
  async flush(): Promise<void> {
    if (this.options.dataDir === null) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    // Queuing a write even when nothing is dirty waits for the write in progress, whose export may
    // hold the latest commits, and retries it if it fails.
    await this.queueWrite();
  }

  /** Flushes, then frees the database. If the flush fails the store stays open, so close can be retried. */
  async close(): Promise<void> {
    if (this.closed) return;
    while (this.held) await this.held;
    await this.flush();
    // A commit made while the flush waited for the disk needs one more.
    while (this.dirty && !this.closed) await this.flush();
    if (this.closed) return;
    this.closed = true;
    for (const statement of this.statements.values()) statement.free();
    this.statements.clear();
    this.db.close();
  }

  private changed(): void {
    if (this.options.dataDir === null || this.closed) return;
    this.dirty = true;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.queueWrite().catch(() => {
        // Logged by save(); the next commit or flush retries.
      });
    }, this.options.debounceMs);
  }

  /** Queues a write after the one in progress, unless one is already waiting (it will include ours). */
  private queueWrite(): Promise<void> {
    if (!this.nextWrite) {
      const write = this.writes.then(() => this.save());
      this.nextWrite = write;
      this.writes = write.catch(() => {});
    }
    return this.nextWrite;
  }

  private async save(): Promise<void> {
    this.nextWrite = undefined;
    const dataDir = this.options.dataDir;
    if (!this.dirty || this.closed || dataDir === null) return;
    // A chunked transaction in progress is not committed: export once it has ended.
    const bytes = await this.whenIdle(() => {
      this.dirty = false;
      return this.db.export();
    });
    try {
      await writeDatabaseFile(dataDir, bytes);
    } catch (error) {
      this.dirty = true;
      this.options.log.error(
        `could not save the database in ${dataDir} (kept in memory, will retry): ${error instanceof Error ? error.message : String(error)}`,
      );
      throw error;
    }
  }

  private migrate(): void {
    const version = Number(this.value<number>('PRAGMA user_version') ?? 0);
    if (version > MIGRATIONS.length) {
      throw new Error(
        `the database was written by a newer Dataset Health (schema ${version}, this version knows ${MIGRATIONS.length})`,
      );
    }
    if (version === MIGRATIONS.length) return;
    this.transaction(() => {
      for (const migration of MIGRATIONS.slice(version)) {
        if (typeof migration === 'string') this.db.exec(migration);
        else migration(this.db);
      }
      this.db.exec(`PRAGMA user_version = ${MIGRATIONS.length}`);
    });
  }
}

/** The database in `bytes`, opened and checked (`PRAGMA quick_check`), or why it cannot be used. */
function openChecked(SQL: SqlJsStatic, bytes: Uint8Array): OpenResult<Database> {
  const header = new TextDecoder().decode(bytes.subarray(0, 15));
  if (header !== 'SQLite format 3') return { problem: 'not a SQLite file' };
  let db: Database | undefined;
  try {
    db = new SQL.Database(bytes);
    const verdict = db.exec('PRAGMA quick_check')[0]?.values[0]?.[0];
    if (verdict === 'ok') return { opened: db };
    db.close();
    return { problem: `integrity check failed: ${String(verdict)}` };
  } catch (error) {
    db?.close();
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}
