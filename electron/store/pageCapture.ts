/**
 * Sees every page SQLite writes to a sql.js database file, so the journal can persist what changed
 * instead of the whole database (DESIGN.md §3).
 *
 * sql.js keeps its database in Emscripten's in-memory file system and does not export that file
 * system. Its own `Database.export()` wraps the write of the in-memory file type, and to do so calls
 * `Object.create` with the file type's shared stream operations: we borrow that one call, once per
 * process, to find the same object and wrap its `write`. The wrapper copies each write aimed at a
 * watched database file (identified by the stream's path, `/<db.filename>`) before passing it on. If a
 * future sql.js no longer lends itself to this, `installPageCapture` says so and opening a data
 * directory fails with that message (test/unit/store/pageCapture.test.ts pins the behaviour), instead
 * of silently saving nothing.
 */
import type { Database, SqlJsStatic } from 'sql.js';

type StreamWrite = (
  stream: { path?: unknown },
  buffer: Int8Array | Uint8Array,
  offset: number,
  length: number,
  position: number,
  canOwn?: boolean,
) => number;

interface StreamOps {
  read: unknown;
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
  ops.write = function captureWrite(stream, buffer, offset, length, position, canOwn) {
    const capture = typeof stream.path === 'string' ? files.get(stream.path) : undefined;
    if (capture) capture.record(buffer, offset, length, position);
    return write.call(this, stream, buffer, offset, length, position, canOwn);
  };
}

/** Pages written to one database file since the last `take()`: the newest bytes of each, by page number. */
export class PageCapture {
  private pages = new Map<number, Uint8Array>();
  private pendingBytes = 0;
  private stopped = false;
  /** Set when a write did not look like SQLite's page writes: the journal cannot describe it. */
  unexpected: string | undefined;

  private constructor(
    private readonly files: Map<string, PageCapture>,
    private readonly path: string,
    readonly pageSize: number,
  ) {}

  /** Starts capturing the writes to `db`'s file (call after the database is open and loaded). */
  static watch(SQL: SqlJsStatic, db: Database, pageSize: number): PageCapture {
    const files = watched.get(SQL);
    if (!files) throw new Error(problems.get(SQL) ?? 'installPageCapture was not called for this sql.js');
    const path = `/${(db as Database & { filename: string }).filename}`;
    const capture = new PageCapture(files, path, pageSize);
    files.set(path, capture);
    return capture;
  }

  /** Called for each write to the file: SQLite writes whole, aligned pages to a database file. */
  record(buffer: Int8Array | Uint8Array, offset: number, length: number, position: number): void {
    if (this.stopped) return;
    const { pageSize } = this;
    if (position % pageSize !== 0 || length % pageSize !== 0) {
      // Never thrown: an exception here would fail SQLite's write. The persister saves a whole image.
      this.unexpected ??= `a write of ${length} bytes at ${position} (page size ${pageSize})`;
      return;
    }
    const source = new Uint8Array(buffer.buffer, buffer.byteOffset + offset, length);
    for (let at = 0; at < length; at += pageSize) {
      const pgno = (position + at) / pageSize + 1;
      if (!this.pages.has(pgno)) this.pendingBytes += pageSize;
      this.pages.set(pgno, source.slice(at, at + pageSize));
    }
  }

  /** Bytes of pages captured and not yet taken. */
  get bytes(): number {
    return this.pendingBytes;
  }

  /** The pages captured since the last call, in page order, and forgets them. */
  take(): { pgno: number; bytes: Uint8Array }[] {
    this.unexpected = undefined;
    const pages = [...this.pages].sort((a, b) => a[0] - b[0]).map(([pgno, bytes]) => ({ pgno, bytes }));
    this.pages = new Map();
    this.pendingBytes = 0;
    return pages;
  }

  stop(): void {
    this.stopped = true;
    if (this.files.get(this.path) === this) this.files.delete(this.path);
  }
}
