/**
 * Sees every page SQLite writes to a data directory's database file, so the journal can persist what
 * changed instead of the whole database (docs/storage.md). The file system's writes reach it through
 * sqlFiles.ts, which also keeps the file on disk (pageFile.ts).
 */
import type { Database, SqlJsStatic } from 'sql.js';
import type { PageFile } from './pageFile';
import { type WriteWatcher, watchedFiles } from './sqlFiles';

/**
 * At most this many bytes of pages are kept per transaction to diff against: a large transaction (an
 * import over an existing org) journals the rest whole instead of holding a second copy of them. A
 * poll at 100k datasets touches ~9,000 pages (70 MiB); with 16 MiB, three quarters of them went whole.
 */
const BASE_BYTES = 64 * 1024 * 1024;

/** A checkpoint's view: the database's size then, the next page it reads, and pages kept for it. */
interface Snapshot {
  pages: number;
  next: number;
  kept: Map<number, Uint8Array>;
}

/**
 * A committed transaction whose pages are not in the journal yet: their numbers, the database's size
 * after it, and the bytes of those pages a later write changed before they were journaled.
 */
export interface PendingCommit {
  readonly pgnos: readonly number[];
  readonly dbPages: number;
  readonly before: Map<number, Uint8Array>;
  /** The bytes of its pages as of the previous commit, where kept: the journal writes what changed. */
  readonly bases: Map<number, Uint8Array>;
  /** How many of `pgnos` are journaled already (a write the disk refused resumes from here). */
  journaled: number;
}

/**
 * Which pages of one database file were written, per committed transaction, and their bytes as of that
 * commit: read from the file when journaled, or copied just before a later write changes them (copy on
 * write), so a transaction is journaled whole and consistent whenever its pages are read, and a page
 * written a hundred times in a transaction is journaled once.
 */
export class PageCapture {
  /** Pages the transaction in progress wrote. */
  private dirty = new Set<number>();
  /** Their bytes as of the last commit (for pages that existed then, within BASE_BYTES). */
  private bases = new Map<number, Uint8Array>();
  /** The database's size in pages at the last commit: a page past it is new, with nothing to diff. */
  private committedPages: number;
  /** For each page of a pending commit not copied yet: the newest such commit. */
  private uncopied = new Map<number, PendingCommit>();
  /** A checkpoint's view of the database as of one moment (see `beginSnapshot`). */
  private snapshot: Snapshot | undefined;
  private stopped = false;
  /** Set when a write did not look like SQLite's page writes: the journal cannot describe it. */
  unexpected: string | undefined;

  private constructor(
    private readonly files: Map<string, WriteWatcher>,
    private readonly path: string,
    /** The database's file, on disk: where a page's bytes are read. */
    readonly file: PageFile,
    readonly pageSize: number,
    dbPages: number,
  ) {
    this.committedPages = dbPages;
  }

  /**
   * Starts watching the writes to `db`'s file, `file` (`openPaged`; call after the database is open
   * and loaded).
   */
  static watch(
    SQL: SqlJsStatic,
    db: Database,
    file: PageFile,
    pageSize: number,
    dbPages: number,
  ): PageCapture {
    const files = watchedFiles(SQL);
    const path = `/${(db as Database & { filename: string }).filename}`;
    const capture = new PageCapture(files, path, file, pageSize, dbPages);
    files.set(path, capture);
    return capture;
  }

  /** Called just before each write to the file: SQLite writes whole, aligned pages to a database file. */
  record(length: number, position: number): void {
    if (this.stopped) return;
    const { pageSize } = this;
    if (position % pageSize !== 0 || length % pageSize !== 0) {
      // Never thrown: an exception here would fail SQLite's write. The commitWriter saves a whole image.
      this.unexpected ??= `a write of ${length} bytes at ${position} (page size ${pageSize})`;
      return;
    }
    for (let at = 0; at < length; at += pageSize) {
      const pgno = (position + at) / pageSize + 1;
      if (this.dirty.has(pgno)) continue;
      // The page's first write since the last commit: its bytes now are its bytes as of that commit.
      const pending = this.uncopied.get(pgno);
      const keepBase = pgno <= this.committedPages && this.bases.size * pageSize < BASE_BYTES;
      const snapshot = this.snapshot;
      const forSnapshot =
        snapshot !== undefined && pgno <= snapshot.pages && pgno >= snapshot.next && !snapshot.kept.has(pgno);
      if (pending || keepBase || forSnapshot) {
        const page = new Uint8Array(pageSize);
        this.read(pgno, page, 0);
        // The page is about to change before its commit is journaled: keep its bytes as of that commit.
        if (pending) {
          pending.before.set(pgno, page);
          this.uncopied.delete(pgno);
        }
        if (keepBase) this.bases.set(pgno, page);
        // A checkpoint has not written it yet: keep its bytes as of the checkpoint's moment.
        if (forSnapshot) snapshot.kept.set(pgno, page);
      }
      this.dirty.add(pgno);
    }
  }

  /** At each COMMIT: the pages the transaction wrote become a pending commit (null: it wrote none). */
  commit(dbPages: number): PendingCommit | null {
    // Pages past the end are gone (a rollback cut the file back): nothing of them to journal.
    const pgnos = [...this.dirty].filter((pgno) => pgno <= dbPages).sort((a, b) => a - b);
    const bases = this.bases;
    this.dirty = new Set();
    this.bases = new Map();
    this.committedPages = dbPages;
    if (pgnos.length === 0) return null;
    const pending: PendingCommit = { pgnos, dbPages, before: new Map(), bases, journaled: 0 };
    for (const pgno of pgnos) this.uncopied.set(pgno, pending);
    return pending;
  }

  /**
   * After a ROLLBACK: the pages SQLite put back as they were at the last commit are no longer counted
   * as written. Those left different (a free page it reused keeps what the transaction wrote) or whose
   * bytes were not kept stay, for the journal to record as they now are.
   */
  settleRollback(): void {
    const page = Buffer.allocUnsafe(this.pageSize);
    for (const pgno of this.dirty) {
      const base = this.bases.get(pgno);
      if (!base) continue;
      this.read(pgno, page, 0);
      if (page.equals(base)) {
        this.dirty.delete(pgno);
        this.bases.delete(pgno);
      }
    }
  }

  /** Copies page `pgno` as of `pending`'s commit into `into` at `at`, and lets it go. */
  readCommitted(pending: PendingCommit, pgno: number, into: Uint8Array, at: number): void {
    const copy = pending.before.get(pgno);
    if (copy) {
      into.set(copy, at);
      pending.before.delete(pgno);
    } else {
      this.read(pgno, into, at);
    }
    if (this.uncopied.get(pgno) === pending) this.uncopied.delete(pgno);
  }

  /** Pages written since the last commit (or rollback) was noted. */
  get uncommittedPages(): number {
    return this.dirty.size;
  }

  /** Forgets every pending commit (the whole database was written instead). */
  reset(dbPages: number): void {
    this.dirty = new Set();
    this.bases = new Map();
    this.committedPages = dbPages;
    this.uncopied = new Map();
    this.unexpected = undefined;
  }

  /**
   * Starts a view of the database as it is now (call between transactions: the file then holds the
   * last commit): `readSnapshot` gives its pages, however later commits change them meanwhile, at the
   * cost of a copy of each page changed before it is read.
   */
  beginSnapshot(pages: number): void {
    this.snapshot = { pages, next: 1, kept: new Map() };
  }

  /** Copies pages `from`… (ascending, each once) as of `beginSnapshot` into `into`, back to back. */
  readSnapshot(from: number, count: number, into: Uint8Array): void {
    const snapshot = this.snapshot;
    if (!snapshot || from < snapshot.next) throw new Error('pages of a snapshot are read once, in order');
    const { pageSize } = this;
    for (let i = 0; i < count;) {
      const kept = snapshot.kept.get(from + i);
      if (kept) {
        into.set(kept, i * pageSize);
        snapshot.kept.delete(from + i);
        i += 1;
        continue;
      }
      // A run of pages unchanged since the snapshot: one read from the file.
      let end = i + 1;
      while (end < count && !snapshot.kept.has(from + end)) end += 1;
      const length = (end - i) * pageSize;
      const copied = this.file.read(into, i * pageSize, length, (from + i - 1) * pageSize);
      // The file is shorter than the snapshot's size (nothing shrinks it today): fail, never zeros.
      if (copied < length) throw new Error(`the database file ended before page ${from + end - 1}`);
      i = end;
    }
    snapshot.next = from + count;
  }

  endSnapshot(): void {
    this.snapshot = undefined;
  }

  /** Copies page `pgno` as the file holds it now into `into` at `at`. */
  read(pgno: number, into: Uint8Array, at: number): void {
    const copied = this.file.read(into, at, this.pageSize, (pgno - 1) * this.pageSize);
    // A page past the end of the file (it shrank since): zeros, never bytes of another record.
    if (copied < this.pageSize) into.fill(0, at + copied, at + this.pageSize);
  }

  stop(): void {
    this.stopped = true;
    if (this.files.get(this.path) === this) this.files.delete(this.path);
  }
}
