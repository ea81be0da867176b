/**
 * Sees every page SQLite writes to a sql.js database file, so the journal can persist what changed
 * instead of the whole database (docs/storage.md).
 *
 * sql.js keeps its database in Emscripten's in-memory file system and does not export that file
 * system. Its own `Database.export()` wraps the write of the in-memory file type, and to do so calls
 * `Object.create` with the file type's shared stream operations: we borrow that one call, once per
 * process, to find the same object and wrap its `write`. The wrapper notes which pages of a watched
 * database file (identified by the stream's path, `/<db.filename>`) a write touches; their bytes are
 * read from the file when the journal takes them (see `PageCapture`), so the file itself stays the only
 * copy in memory. If a
 * future sql.js no longer lends itself to this, `installPageCapture` says so and opening a data
 * directory fails with that message (test/unit/store/durability/pageCapture.test.ts pins the behaviour), instead
 * of silently saving nothing.
 */
import type { Database, SqlJsStatic } from 'sql.js';
import { adopt, makeGrowable, reserve } from './fileStorage';

interface Stream {
  path?: unknown;
  node?: Record<string, unknown>;
}

type StreamWrite = (
  stream: Stream,
  buffer: Int8Array | Uint8Array,
  offset: number,
  length: number,
  position: number,
  canOwn?: boolean,
) => number;

type StreamRead = (
  stream: Stream,
  buffer: Uint8Array,
  offset: number,
  length: number,
  position: number,
) => number;

interface StreamOps {
  read: StreamRead;
  write: StreamWrite;
}

/** The watched files of each sql.js module, by path. */
const watched = new WeakMap<SqlJsStatic, Map<string, PageCapture>>();
const problems = new WeakMap<SqlJsStatic, string>();

function isStreamOps(value: unknown): value is StreamOps {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as StreamOps).write === 'function' &&
    typeof (value as StreamOps).read === 'function'
  );
}

/** Finds the in-memory file type's stream operations through one `export()` of a scratch database. */
function findStreamOps(SQL: SqlJsStatic): StreamOps | undefined {
  const scratch = new SQL.Database();
  let found: StreamOps | undefined;
  const create = Object.create;
  try {
    scratch.run('CREATE TABLE probe (x)');
    Object.create = function borrow(proto: object | null, properties?: PropertyDescriptorMap) {
      if (!found && isStreamOps(proto)) found = proto;
      return properties === undefined ? create(proto) : create(proto, properties);
    } as typeof Object.create;
    scratch.export();
  } finally {
    Object.create = create;
    scratch.close();
  }
  return found;
}

/** Wraps the file system's writes once per sql.js module; afterwards `PageCapture.watch` works. */
export function installPageCapture(SQL: SqlJsStatic): void {
  if (watched.has(SQL) || problems.has(SQL)) return;
  const ops = findStreamOps(SQL);
  if (!ops) {
    problems.set(SQL, 'this sql.js build does not let Dataset Health see page writes (journal unavailable)');
    return;
  }
  const files = new Map<string, PageCapture>();
  watched.set(SQL, files);
  const write = ops.write;
  const read = ops.read;
  const fileReader =
    (stream: Stream): FileReader =>
    (into, at, length, position) =>
      read.call(ops, stream, into, at, length, position);
  ops.write = function captureWrite(stream, buffer, offset, length, position, canOwn) {
    const node = stream.node;
    if (buffer === adopting && node) {
      // An image loaded at open, already in growable memory: the file takes it as it is, no copy.
      const written = write.call(this, stream, buffer, offset, length, position, true);
      adopt(node, buffer);
      adoptedReader = fileReader(stream);
      return written;
    }
    const capture = typeof stream.path === 'string' ? files.get(stream.path) : undefined;
    if (!capture) return write.call(this, stream, buffer, offset, length, position, canOwn);
    capture.record(length, position, fileReader(stream));
    if (node) reserve(node, position + length);
    const written = write.call(this, stream, buffer, offset, length, position, canOwn);
    if (node) makeGrowable(node);
    return written;
  };
}

/** The bytes `openAdopting` is handing to sql.js, while it does, and how to read that file back. */
let adopting: Uint8Array | undefined;
let adoptedReader: FileReader | undefined;
/** How to read each adopted database's file before its first write (a checkpoint right at open). */
const adoptedReaders = new WeakMap<Database, FileReader>();

/**
 * Runs `open` (which makes a sql.js Database of `bytes`) so that the database file keeps `bytes` as its
 * storage instead of a copy: an image is in memory once, and (from `growableBuffer`) grows in place.
 */
export function openAdopting(bytes: Uint8Array, open: () => Database): Database {
  adopting = bytes;
  adoptedReader = undefined;
  try {
    const db = open();
    if (adoptedReader) adoptedReaders.set(db, adoptedReader);
    return db;
  } finally {
    adopting = undefined;
    adoptedReader = undefined;
  }
}

/**
 * At most this many bytes of pages are kept per transaction to diff against: a large transaction (an
 * import over an existing org) journals the rest whole instead of holding a second copy of them. A
 * poll at 100k datasets touches ~9,000 pages (70 MiB); with 16 MiB, three quarters of them went whole.
 */
const BASE_BYTES = 64 * 1024 * 1024;

/** Copies `length` bytes of the file from `position`, as it is now, into `into` at `at`; returns the bytes copied. */
type FileReader = (into: Uint8Array, at: number, length: number, position: number) => number;

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
  private reader: FileReader | undefined;
  /** A checkpoint's view of the database as of one moment (see `beginSnapshot`). */
  private snapshot: Snapshot | undefined;
  private stopped = false;
  /** Set when a write did not look like SQLite's page writes: the journal cannot describe it. */
  unexpected: string | undefined;

  private constructor(
    private readonly files: Map<string, PageCapture>,
    private readonly path: string,
    readonly pageSize: number,
    dbPages: number,
  ) {
    this.committedPages = dbPages;
  }

  /** Starts watching the writes to `db`'s file (call after the database is open and loaded). */
  static watch(SQL: SqlJsStatic, db: Database, pageSize: number, dbPages: number): PageCapture {
    const files = watched.get(SQL);
    if (!files) throw new Error(problems.get(SQL) ?? 'installPageCapture was not called for this sql.js');
    const path = `/${(db as Database & { filename: string }).filename}`;
    const capture = new PageCapture(files, path, pageSize, dbPages);
    capture.reader = adoptedReaders.get(db);
    files.set(path, capture);
    return capture;
  }

  /** Called just before each write to the file: SQLite writes whole, aligned pages to a database file. */
  record(length: number, position: number, reader: FileReader): void {
    if (this.stopped) return;
    this.reader = reader;
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
    // Never zeros for pages of a file it cannot read: the checkpoint fails instead, and is retried.
    if (!this.reader && count > 0) throw new Error('the database file cannot be read for a checkpoint yet');
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
      const copied = this.reader?.(into, i * pageSize, length, (from + i - 1) * pageSize) ?? 0;
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
    const copied = this.reader?.(into, at, this.pageSize, (pgno - 1) * this.pageSize) ?? 0;
    // A page past the end of the file (it shrank since): zeros, never bytes of another record.
    if (copied < this.pageSize) into.fill(0, at + copied, at + this.pageSize);
  }

  stop(): void {
    this.stopped = true;
    if (this.files.get(this.path) === this) this.files.delete(this.path);
  }
}
