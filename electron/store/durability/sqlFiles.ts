/**
 * How the store reaches sql.js's file system (docs/storage.md "How sql.js is reached"): a data
 * directory's database file is kept on disk (pageFile.ts) instead of in memory, and its writes are
 * seen (pageCapture.ts) so the journal can persist what changed.
 *
 * sql.js keeps its database in Emscripten's in-memory file system and does not export that file
 * system. Its own `Database.export()` wraps the write of the in-memory file type, and to do so calls
 * `Object.create` with the file type's shared stream operations: we borrow that one call, once per
 * process, to find the same object and wrap its `read` and `write`. A database opened with `openPaged`
 * reads and writes its page file through them; a watched file (identified by the stream's path,
 * `/<db.filename>`) tells its watcher which pages a write touches. If a future sql.js no longer lends
 * itself to this, `installPageCapture` or `openPaged` says so and opening a data directory fails with
 * that message (test/unit/store/durability/sqlFiles.test.ts pins the behaviour), instead of silently
 * saving nothing.
 */
import type { Database, SqlJsStatic } from 'sql.js';
import type { PageFile } from './pageFile';

/** What sees the writes to a watched file (`PageCapture`). */
export interface WriteWatcher {
  record(length: number, position: number): void;
}

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
  buffer: Int8Array | Uint8Array,
  offset: number,
  length: number,
  position: number,
) => number;

interface StreamOps {
  read: StreamRead;
  write: StreamWrite;
}

/** A file's attributes as the in-memory file system reports them (`stat`). */
interface Attributes {
  size: number;
  blocks: number;
  blksize: number;
}

/** The watched files of each sql.js module, by path. */
const watched = new WeakMap<SqlJsStatic, Map<string, WriteWatcher>>();
const problems = new WeakMap<SqlJsStatic, string>();
/** The database files kept on disk (pageFile.ts), by the file system's node. */
const pageFiles = new WeakMap<object, PageFile>();
/** The node operations (stat, truncate) already taught about page files. */
const taughtNodeOps = new WeakSet<object>();

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

/**
 * Wraps the file system's reads and writes once per sql.js module: afterwards `openPaged` keeps a
 * database file on disk, and `PageCapture.watch` sees what SQLite writes to it.
 */
export function installPageCapture(SQL: SqlJsStatic): void {
  if (watched.has(SQL) || problems.has(SQL)) return;
  const ops = findStreamOps(SQL);
  if (!ops) {
    problems.set(SQL, 'this sql.js build does not let Dataset Health see page writes (journal unavailable)');
    return;
  }
  const files = new Map<string, WriteWatcher>();
  watched.set(SQL, files);
  const write = ops.write;
  const read = ops.read;
  ops.read = function pagedRead(stream, buffer, offset, length, position) {
    const file = stream.node ? pageFiles.get(stream.node) : undefined;
    if (file) return file.read(buffer as Uint8Array, offset, length, position);
    return read.call(this, stream, buffer, offset, length, position);
  };
  ops.write = function captureWrite(stream, buffer, offset, length, position, canOwn) {
    const node = stream.node;
    if (buffer === ATTACH && node && attaching) {
      // `openPaged`: the database's file is this page file from now on.
      attach(node, attaching);
      attaching = undefined;
      return 0;
    }
    const capture = typeof stream.path === 'string' ? files.get(stream.path) : undefined;
    capture?.record(length, position);
    const file = node ? pageFiles.get(node) : undefined;
    if (!file) return write.call(this, stream, buffer, offset, length, position, canOwn);
    file.write(buffer as Uint8Array, offset, length, position);
    node!.mtime = node!.ctime = Date.now();
    return length;
  };
}

/** The marker `openPaged` hands sql.js as the database's bytes, and the page file it stands for. */
const ATTACH = new Uint8Array(0);
let attaching: PageFile | undefined;

/**
 * Opens a database (`open` makes a sql.js Database of the bytes it is given: pass them on) whose file
 * is `file`, on disk, instead of bytes in memory. Throws when this sql.js cannot be taught to.
 */
export function openPaged(file: PageFile, open: (bytes: Uint8Array) => Database): Database {
  attaching = file;
  let db: Database | undefined;
  try {
    db = open(ATTACH);
  } finally {
    const missed = attaching !== undefined;
    attaching = undefined;
    if (missed) {
      db?.close();
      // eslint-disable-next-line no-unsafe-finally
      throw new Error('this sql.js build does not let Dataset Health keep the database on disk');
    }
  }
  return db;
}

/**
 * Makes `node` (a file of the in-memory file system) read and write `file`, including its size as
 * `stat` reports it and truncation. The file system's node operations for files are shared by every
 * file and, in sql.js's minified build, named by letters: they are told apart by what they take
 * (`getattr(node)`, `setattr(node, attributes)`), and wrapped once.
 */
function attach(node: Record<string, unknown>, file: PageFile): void {
  const nodeOps = Object.values(node).find(isFileNodeOps);
  if (!nodeOps) throw new Error('this sql.js build does not let Dataset Health keep the database on disk');
  pageFiles.set(node, file);
  if (taughtNodeOps.has(nodeOps)) return;
  taughtNodeOps.add(nodeOps);
  for (const [key, fn] of Object.entries(nodeOps) as [string, (...args: unknown[]) => unknown][]) {
    if (fn.length === 1) {
      nodeOps[key] = function getattr(this: unknown, target: object) {
        const attributes = fn.call(this, target) as Attributes;
        const paged = pageFiles.get(target);
        if (paged) {
          attributes.size = paged.size;
          attributes.blocks = Math.ceil(paged.size / attributes.blksize);
        }
        return attributes;
      } as (...args: unknown[]) => unknown;
    } else {
      nodeOps[key] = function setattr(this: unknown, target: object, change: { size?: number }) {
        const paged = pageFiles.get(target);
        if (!paged || change.size === undefined) return fn.call(this, target, change);
        paged.truncate(change.size);
        // The rest (mode, times) as the file system does it, without its copy of the file.
        return fn.call(this, target, { ...change, size: undefined });
      } as (...args: unknown[]) => unknown;
    }
  }
}

/** The node operations of a file: exactly `getattr(node)` and `setattr(node, attributes)`. */
function isFileNodeOps(value: unknown): value is Record<string, (...args: unknown[]) => unknown> {
  if (typeof value !== 'object' || value === null || isStreamOps(value)) return false;
  const fns = Object.values(value);
  return (
    fns.length === 2 &&
    fns.every((fn) => typeof fn === 'function') &&
    fns.some((fn) => (fn as () => void).length === 1) &&
    fns.some((fn) => (fn as () => void).length === 2)
  );
}

/** The files of `SQL` whose writes are watched, by path (for `PageCapture.watch`). */
export function watchedFiles(SQL: SqlJsStatic): Map<string, WriteWatcher> {
  const files = watched.get(SQL);
  if (!files) throw new Error(problems.get(SQL) ?? 'installPageCapture was not called for this sql.js');
  return files;
}
