/**
 * The store: one sql.js database per data directory, migrated on open and written in transactions
 * (docs/storage.md). Every commit's pages go to the journal (durability/writer.ts); opening replays it
 * (durability/opening.ts). This file is the SQL side: statements, transactions, and the chunked transaction
 * a large sync commits in.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { BindParams, Database, SqlValue, Statement } from 'sql.js';
import { MIGRATIONS } from './schema/migrations';
import type { Row } from './schema/row';
import { PageCapture } from './durability/pageCapture';
import type { PageFile } from './durability/pageFile';
import { type LoadedDatabase, readDatabaseFile } from './durability/opening';
import { CommitWriter } from './durability/writer';
import {
  DEFAULT_DEBOUNCE_MS,
  type StoreLogger,
  type StoreOptions,
  type StorePersistence,
  persistenceOf,
} from './storeOptions';
import { ChunkLock, type ChunkRunner } from './chunkLock';
import { type Rows, openRows } from './rows';
import { configure, loadSqlJs, newDatabase, newPagedDatabase, openWhenLoaded } from './sqlJs';

export { loadSqlJs } from './sqlJs';

export type { StoreLogger, StoreOptions, StorePersistence } from './storeOptions';
export { DEFAULT_DEBOUNCE_MS } from './storeOptions';

export type { Row };

export interface TransactionOptions {
  /** False for bookkeeping the API does not serve (a key's last-used time): ETags and cached pages stay. */
  dataChange?: boolean;
}

export { type ChunkRunner, StoreBusyError, StoreReadOnlyError } from './chunkLock';
export type { Rows } from './rows';

const NO_LOG: StoreLogger = { warn: () => {}, error: () => {} };

export class Store {
  private readonly statements = new Map<string, Statement>();
  private depth = 0;
  private readonly rollbackListeners = new Set<() => void>();
  /** Whether the transaction in progress changes data the API serves (see `transaction`). */
  private dataChange = false;
  /** Journals and checkpoints; undefined for a store kept in memory only. */
  private commitWriter: CommitWriter | undefined;
  private replayedBytes = 0;
  private closed = false;
  private revision = 0;
  private readonly lock = new ChunkLock();
  /** Differs per process, so an ETag from an earlier run never matches a new body. */
  readonly bootId = randomUUID().slice(0, 8);

  private constructor(
    readonly db: Database,
    /** The database's file on disk (a data directory's), or none for a store kept in memory. */
    private readonly file: PageFile | null,
  ) {}

  static async open(options: StoreOptions): Promise<Store> {
    const loading = loadSqlJs();
    // Awaited below; a replay that fails first must not leave its failure unhandled.
    loading.catch(() => {});
    const log = options.log ?? NO_LOG;
    let loaded: LoadedDatabase<{ db: Database; file: PageFile }> | undefined;
    if (options.dataDir !== null) {
      mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
      loaded = await readDatabaseFile(options.dataDir, openWhenLoaded(loading), options.opening);
      for (const warning of loaded.warnings) log.warn(`${options.dataDir}: ${warning}`);
    }
    const SQL = await loading;
    const opened =
      loaded?.opened ?? (options.dataDir !== null ? newPagedDatabase(SQL, options.dataDir) : null);
    const db = configure(opened?.db ?? newDatabase(SQL));
    const store = new Store(db, opened?.file ?? null);
    try {
      if (options.dataDir !== null && loaded)
        await store.startPersisting(SQL, options.dataDir, loaded, options, log);
      store.migrate();
    } catch (error) {
      await store.commitWriter?.abandon().catch(() => {});
      db.close();
      store.file?.close();
      throw error;
    }
    store.commitWriter?.opened();
    return store;
  }

  private async startPersisting(
    SQL: Awaited<ReturnType<typeof loadSqlJs>>,
    dataDir: string,
    loaded: LoadedDatabase<unknown>,
    options: StoreOptions,
    log: StoreLogger,
  ): Promise<void> {
    const pageSize = Number(this.value<number>('PRAGMA page_size'));
    const pageCount = Number(this.value<number>('PRAGMA page_count'));
    if (!this.file) throw new Error("a data directory's database is kept in a page file");
    const capture = PageCapture.watch(SQL, this.db, this.file, pageSize, pageCount);
    const imageBytes = pageCount * pageSize;
    this.replayedBytes = loaded.replayedBytes;
    const lock = this.lock;
    this.commitWriter = await CommitWriter.start(
      dataDir,
      loaded,
      imageBytes,
      capture,
      {
        // Read right after a COMMIT, while a chunked transaction still holds the store.
        pageCount: () => Number(this.db.exec('PRAGMA page_count')[0]?.values[0]?.[0]),
        whenIdle: (fn) => this.whenIdle(fn),
        get busy() {
          return lock.busy;
        },
        exportImage: () => this.db.export(),
      },
      {
        ...options.checkpoint,
        debounceMs: options.debounceMs ?? DEFAULT_DEBOUNCE_MS,
        log,
        ...(options.openJournal ? { openJournal: options.openJournal } : {}),
      },
    );
  }

  /** How the database reaches disk; null for a store kept in memory only. */
  get persistence(): StorePersistence | null {
    return this.commitWriter ? persistenceOf(this.commitWriter, this.replayedBytes) : null;
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
    this.lock.checkWritable();
    if (this.depth > 0) {
      this.dataChange ||= dataChange;
      return this.nested(fn);
    }
    this.begin(options);
    return this.commitOrRollback(fn);
  }

  /** Ends the transaction `begin` opened: committed once `result` returns, rolled back if it throws. */
  private commitOrRollback<T>(result: () => T): T {
    try {
      const value = result();
      this.commit();
      return value;
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
    const release = await this.lock.acquire();
    this.begin(options);
    const slice = this.lock.runner();
    try {
      let result: T;
      try {
        result = await work(slice);
      } catch (error) {
        return this.commitOrRollback(() => {
          throw error;
        });
      }
      return this.commitOrRollback(() => result);
    } finally {
      release();
    }
  }

  /**
   * Runs `fn` once no chunked transaction is open and no export holds the writers. The check and the
   * call happen in one synchronous step, so nothing can begin in between: every asynchronous user of the
   * store that may write (saves, read-through writes, acknowledgements) goes through here.
   */
  whenIdle<T>(fn: () => T): Promise<T> {
    return this.lock.whenIdle(fn);
  }

  /**
   * Runs `fn`, which only reads, once no chunked transaction is open: unlike `whenIdle` it does not wait
   * for an export in progress, so API requests and the window's reads are answered while a large export
   * runs. A write inside it throws `StoreReadOnlyError` (a bug), before anything changes.
   */
  whenReadable<T>(fn: () => T): Promise<T> {
    return this.lock.whenReadable(fn);
  }

  /**
   * Runs `work` with the writers held off (docs/decisions.md "Export in slices"): it may read across many
   * turns of the event loop (`openRows`) and sees the data of one moment. Meanwhile readers
   * (`whenReadable`) go on, and writers (`whenIdle`, a chunked transaction) wait until it ends: none fails
   * because of it. It starts once a chunked transaction in progress and the writers already waiting are
   * done, so a stream of exports never starves a sync.
   */
  async holdingWriters<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.lock.holdWriters();
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** The rows of `sql`, one `next` at a time: across turns only inside `holdingWriters` (nothing changes them). */
  openRows(sql: string, params: BindParams = []): Rows {
    return openRows(this.db, () => this.checkFree(), sql, params);
  }

  /** A chunked transaction is open and the caller is not one of its slices. */
  get busy(): boolean {
    return this.lock.busy;
  }

  private checkFree(): void {
    this.lock.checkFree();
  }

  private begin(options: TransactionOptions): void {
    this.db.run('BEGIN IMMEDIATE');
    this.depth = 1;
    this.dataChange = options.dataChange ?? true;
  }

  private rollback(): void {
    this.db.run('ROLLBACK');
    this.commitWriter?.rolledBack();
    for (const listener of this.rollbackListeners) listener();
  }

  private commit(): void {
    this.db.run('COMMIT');
    if (this.dataChange) this.revision += 1;
    this.commitWriter?.committed();
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
    return this.eachRow(sql, params, (row) => visit(row[0] as T));
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
    this.lock.checkWritable();
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
   * Resolves once everything committed so far is on disk (fsynced in the journal). Rejects when the
   * disk refuses; the changes stay in memory and are written when it accepts them again.
   */
  async flush(): Promise<void> {
    await this.commitWriter?.flush();
  }

  /**
   * Makes everything committed durable (writing a new image when the last one lacks a commit, so a
   * clean stop leaves `health.sqlite` current: docs/storage.md), then frees the database. If the disk
   * refuses, the store stays open, so close can be retried.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.lock.idle();
    await this.commitWriter?.close();
    if (this.closed) return;
    this.closed = true;
    for (const statement of this.statements.values()) statement.free();
    this.statements.clear();
    this.db.close();
    this.file?.close();
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
