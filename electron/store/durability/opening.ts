/**
 * Opening a data directory's database (docs/storage.md): the image `health.sqlite` plus the journals
 * that follow it, replayed into a page file (pageFile.ts) whose base is the image: the database is
 * read from disk, never loaded whole into memory. Each image carries a generation
 * (stamped by the checkpoint that wrote it, in SQLite's application_id header field); a journal names
 * the generation it belongs to, or the journal it continues and that one's committed length, so a
 * journal is never replayed onto an image it does not belong to. An image that does not open (or
 * fails `quick_check` once replayed) is moved aside and the backup `health.sqlite.bak` used, with its
 * own journals, which lead to the same commits.
 */
import { closeSync, readSync } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { BACKUP_FILE, DATABASE_FILE, isErrno, listDir, moveAside, removeLeftoverTempFiles } from './files';
import { type ImageSum, checkImageFile, readImageSum } from './imageSum';
import { isJournalFileName, isNewJournalFileName } from './journal';
import { HEADER_BYTES, type JournalExtent, type JournalHeader, applyPage, decodeHeader } from './journalFile';
import { readRecords } from './journalReading';
import { OffThread } from './offThread';
import { type BaseImage, PageFile } from './pageFile';

/**
 * A replay keeps the pages it changed in memory up to this many bytes before writing them to the page
 * file: a journal of small patches touches the same pages again and again (a dataset's row, the sort
 * indexes), and reading and writing a page through the file for each patch would cost two system
 * calls per patch. A full journal at 100k datasets touches about 45 MiB of pages over and over: at
 * 32 MiB every pass re-read them all (1 GB read and written back, 0.7 s of a 2 s open). The memory is
 * taken as pages are touched, and given back when the replay ends.
 */
const REPLAY_CACHE_BYTES = 128 * 1024 * 1024;
/** Replayed pages are allocated this many bytes at a time. */
const REPLAY_CHUNK_BYTES = 2 * 1024 * 1024;
/**
 * Images and journals from this size are summed and inflated on a worker thread (offThread.ts) while
 * the replay goes on; below it, a worker's start costs more than it saves.
 */
export const OFF_THREAD_BYTES = 8 * 1024 * 1024;

/** Where a checkpoint stamps the image's generation: SQLite's application_id (4 bytes, big-endian). */
export const GEN_OFFSET = 68;

export function readImageGen(bytes: Uint8Array): number {
  if (bytes.length < 100) return 0;
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.length).getUint32(GEN_OFFSET);
}

/** A journal found in the data directory. */
export interface JournalOnDisk {
  file: string;
  header: JournalHeader;
  size: number;
}

/** A journal replayed at open, and how far its committed transactions reach. */
export interface ChainLink {
  journal: JournalOnDisk;
  extent: JournalExtent;
}

export interface LoadedDatabase<T> {
  /** What `open` made of the bytes, or null to start empty. */
  opened: T | null;
  /** Which image the database came from. */
  source: 'main' | 'backup' | 'none';
  /** The generation of that image (0: no image yet, or one written before journals existed). */
  imageGen: number;
  /** The image file the chain applies to (null: none), for the next checkpoint. */
  imageFile: string | null;
  /** The journals replayed, in order: the last one is appended to next. */
  chain: ChainLink[];
  /** Every journal in the folder, so the commitWriter can remove those no image needs. */
  journals: JournalOnDisk[];
  /** What was wrong and what was done about it, one line each, for the store's logger. */
  warnings: string[];
  /** Bytes replayed from journals, and how long opening took (for the benchmark). */
  replayedBytes: number;
}

/** What opening a file's bytes gave: the opened database, or why the file cannot be used. */
export type OpenResult<T> = { opened: T } | { problem: string };

/**
 * Opens a database whose file is `file` (taken over: closed with what it opens, or by the caller on a
 * problem); `verified`: its checksum vouches for it (no integrity check needed).
 */
export type OpenFile<T> = (file: PageFile, verified: boolean) => OpenResult<T> | Promise<OpenResult<T>>;

export interface OpeningOptions {
  now?: () => Date;
  /** Images and journals from this many bytes are summed and inflated on a worker (default OFF_THREAD_BYTES). */
  offThreadFrom?: number;
  /** Pages a replay keeps in memory before writing them to the page file (default REPLAY_CACHE_BYTES). */
  replayCacheBytes?: number;
}

/** Opens the database of `dataDir`: the main image and its journals, else the backup and its own. */
export async function readDatabaseFile<T>(
  dataDir: string,
  openFile: OpenFile<T>,
  {
    now = () => new Date(),
    offThreadFrom = OFF_THREAD_BYTES,
    replayCacheBytes = REPLAY_CACHE_BYTES,
  }: OpeningOptions = {},
): Promise<LoadedDatabase<T>> {
  await removeLeftoverTempFiles(dataDir);
  // A journal killed before its first fsync: it holds nothing committed.
  for (const name of await listDir(dataDir))
    if (isNewJournalFileName(name)) await rm(join(dataDir, name), { force: true });
  const warnings: string[] = [];
  const journals = await readJournals(dataDir, warnings);
  const loaded = (source: LoadedDatabase<T>['source'], image: Candidate<T>): LoadedDatabase<T> => ({
    opened: image.opened,
    source,
    imageGen: image.gen,
    imageFile: image.file,
    chain: image.chain,
    journals,
    warnings,
    replayedBytes: image.chain.reduce((sum, link) => sum + link.extent.changeBytes, 0),
  });

  const mainFile = join(dataDir, DATABASE_FILE);
  const tryIt = (file: string | null, sum: ImageSum | null): Promise<TryResult<T>> =>
    tryImage({ dataDir, file, journals, openFile, sum, offThreadFrom, replayCacheBytes });
  const main = await tryIt(mainFile, await readImageSum(dataDir));
  if (main.status === 'ok') return loaded('main', main);
  if (main.status === 'unusable') {
    const movedAside = await moveAside(mainFile, now());
    warnings.push(`the database file was unusable (${main.problem}); moved it to ${movedAside}`);
  }

  const backupFile = join(dataDir, BACKUP_FILE);
  const backup = await tryIt(backupFile, null);
  if (backup.status === 'ok') {
    warnings.push(
      main.status === 'missing'
        ? `the database file was missing; opened the backup ${BACKUP_FILE}`
        : `opened the backup ${BACKUP_FILE}`,
    );
    return loaded('backup', backup);
  }
  if (backup.status === 'unusable') {
    const movedAside = await moveAside(backupFile, now());
    warnings.push(`the backup was unusable too (${backup.problem}); moved it to ${movedAside}`);
  }

  // No image: the journals written before the first checkpoint, if any, hold the whole database.
  const fresh = await tryIt(null, null);
  if (fresh.status === 'unusable') warnings.push(`the journals could not be replayed (${fresh.problem})`);
  const start =
    fresh.status === 'ok' ? fresh : { status: 'ok' as const, opened: null, gen: 0, file: null, chain: [] };
  if (main.status === 'unusable' && start.opened === null) {
    warnings.push('started with an empty database: no usable backup');
  }
  return loaded('none', start);
}

type Candidate<T> = { status: 'ok'; opened: T | null; gen: number; file: string | null; chain: ChainLink[] };
type TryResult<T> = Candidate<T> | { status: 'missing' } | { status: 'unusable'; problem: string };

interface ImageToTry<T> {
  dataDir: string;
  /** The image (null: none, the journals alone). */
  file: string | null;
  journals: JournalOnDisk[];
  openFile: OpenFile<T>;
  /** What its checkpoint summed it to, if known. */
  sum: ImageSum | null;
  offThreadFrom: number;
  replayCacheBytes: number;
}

/**
 * Opens `file` (null: no image) as the base of a page file, replays its chain into it, then hands it
 * to `openFile`. The image is summed while the journals replay (on a worker when it is large): one
 * that turns out corrupt only cost a replay thrown away.
 */
async function tryImage<T>(image: ImageToTry<T>): Promise<TryResult<T>> {
  const { dataDir, file, journals, openFile, sum, offThreadFrom, replayCacheBytes } = image;
  let base: BaseImage | null = null;
  let gen = 0;
  let imagePageSize = 0;
  if (file !== null) {
    try {
      base = PageFile.openBase(file);
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return { status: 'missing' };
      throw error;
    }
    const header = Buffer.alloc(100);
    const read = readSync(base.fd, header, 0, 100, 0);
    if (read < 100 || header.toString('latin1', 0, 15) !== 'SQLite format 3') {
      closeSync(base.fd);
      return { status: 'unusable', problem: 'not a SQLite file' };
    }
    gen = readImageGen(header);
    const sizeField = header.readUInt16BE(16);
    imagePageSize = sizeField === 1 ? 65536 : sizeField;
  }
  let pages: PageFile | undefined;
  let check: Promise<'ok' | 'corrupt' | 'unknown'> | undefined;
  const workers: OffThread[] = [];
  const worker = (bytes: number): OffThread | null => {
    const started = bytes >= offThreadFrom ? OffThread.start() : null;
    if (started) workers.push(started);
    return started;
  };
  try {
    const first = firstJournal(journals, gen);
    if (file === null && !first) return { status: 'ok', opened: null, gen, file, chain: [] };
    const pageSize = first?.header.pageSize ?? imagePageSize;
    if (file !== null && first && first.header.pageSize !== imagePageSize) {
      return { status: 'unusable', problem: 'its journal was written with another page size' };
    }
    if (base) check = checkImageFile(sum, gen, base, sum ? worker(base.size) : null);
    // Awaited after the replay: a failure meanwhile must not go unhandled.
    check?.catch(() => {});
    try {
      pages = PageFile.create(dataDir, pageSize, base);
    } catch (error) {
      return { status: 'unusable', problem: error instanceof Error ? error.message : String(error) };
    }
    base = null;
    const journalBytes = first ? journals.reduce((total, journal) => total + journal.size, 0) : 0;
    const replay = new ReplayPages(pages, replayCacheBytes);
    const replayed = await replayChain(journals, first, replay, worker(journalBytes));
    const checked = await check;
    if (checked === 'corrupt') return { status: 'unusable', problem: 'its checksum does not match' };
    pages.truncate(replayed.size);
    // Journal records are checksummed too: a verified image stays verified once they are replayed.
    const result = await openFile(pages, checked === 'ok');
    if ('problem' in result) return { status: 'unusable', problem: result.problem };
    pages = undefined;
    return { status: 'ok', opened: result.opened, gen, file, chain: replayed.chain };
  } finally {
    // The image's file stays open until its check is done with it.
    await check?.catch(() => {});
    try {
      pages?.close();
      if (base) closeSync(base.fd);
    } finally {
      await Promise.all(workers.map((started) => started.close()));
    }
  }
}

/** The journal that follows an image of generation `gen`: its own (same generation), or one started on it. */
function firstJournal(journals: JournalOnDisk[], gen: number): JournalOnDisk | undefined {
  return (
    (gen !== 0 ? journals.find((j) => j.header.gen === gen) : undefined) ??
    journals.find((j) => j.header.base.kind === 'image' && j.header.base.gen === gen)
  );
}

/**
 * Applies the journals that follow the image, in one pass over each: from `first`, each journal that
 * continues the previous one at exactly its committed length (any other belongs to another image and
 * is ignored). Pages are changed as records are read (in memory, written to `file` in batches); the
 * pages an unfinished commit at a journal's end overwrote are put back (only pages that existed
 * before it: a commit that grows the database, like a first sync, needs no copies). Returns the chain
 * and the database's size.
 */
async function replayChain(
  journals: JournalOnDisk[],
  first: JournalOnDisk | undefined,
  pages: ReplayPages,
  offThread: OffThread | null,
): Promise<{ chain: ChainLink[]; size: number }> {
  const chain: ChainLink[] = [];
  const { pageSize } = pages.file;
  let size = pages.file.size;
  let current = first;
  while (current && current.header.pageSize === pageSize) {
    const handle = await open(current.file, 'r');
    const extent: JournalExtent = { committedLength: HEADER_BYTES, dbPages: 0, commits: 0, changeBytes: 0 };
    let uncommittedChanges = 0;
    // What the parts of a commit overwrote, in order: put back if its commit record never follows. A
    // commit record needs none: it is checked whole before it is applied, and commits at once.
    const undo: { pgno: number; at: number; bytes: Uint8Array }[] = [];
    try {
      for await (const record of readRecords(handle, current.header, current.size, offThread)) {
        const partial = record.dbPages === 0;
        uncommittedChanges += record.body.length;
        for (const page of record.pages) {
          const existed = (page.pgno - 1) * pageSize < size;
          const keeps = partial && existed;
          const target = pages.get(page.pgno, !page.whole || keeps);
          const keep = keeps
            ? (from: number, length: number): void => {
                undo.push({ pgno: page.pgno, at: from, bytes: target.slice(from, from + length) });
              }
            : undefined;
          applyPage(record.body, page, target, 0, keep);
        }
        if (record.dbPages > 0) {
          extent.committedLength = record.end;
          extent.dbPages = record.dbPages;
          extent.commits += 1;
          extent.changeBytes += uncommittedChanges;
          uncommittedChanges = 0;
          size = record.dbPages * pageSize;
          undo.length = 0;
        }
      }
    } finally {
      await handle.close();
    }
    for (let i = undo.length - 1; i >= 0; i--)
      pages.get(undo[i]!.pgno, true).set(undo[i]!.bytes, undo[i]!.at);
    chain.push({ journal: current, extent });
    const previous = current;
    current = journals.find(
      (j) =>
        j.header.base.kind === 'journal' &&
        j.header.base.gen === previous.header.gen &&
        j.header.base.length === extent.committedLength &&
        !chain.some((link) => link.journal === j),
    );
  }
  pages.flush();
  return { chain, size };
}

/** The pages a replay is changing, kept in memory (up to REPLAY_CACHE_BYTES) and written in batches. */
class ReplayPages {
  private readonly pages = new Map<number, Uint8Array>();
  /** Memory for pages, REPLAY_CHUNK_BYTES at a time, reused after each flush. */
  private readonly chunks: Uint8Array[] = [];
  private used = 0;

  constructor(
    readonly file: PageFile,
    private readonly cacheBytes: number,
  ) {}

  /** Page `pgno` to change in place; `withBytes`: as the file holds it (else it is overwritten whole). */
  get(pgno: number, withBytes: boolean): Uint8Array {
    let page = this.pages.get(pgno);
    if (page) return page;
    const { pageSize } = this.file;
    if (this.pages.size * pageSize >= this.cacheBytes) this.flush();
    page = this.take(pageSize);
    if (withBytes) {
      // Past the file's end the page reads as zeros (its memory may hold an earlier page's bytes).
      const read = this.file.read(page, 0, pageSize, (pgno - 1) * pageSize);
      if (read < pageSize) page.fill(0, read);
    }
    this.pages.set(pgno, page);
    return page;
  }

  flush(): void {
    const { pageSize } = this.file;
    for (const pgno of [...this.pages.keys()].sort((a, b) => a - b))
      this.file.write(this.pages.get(pgno)!, 0, pageSize, (pgno - 1) * pageSize);
    this.pages.clear();
    this.used = 0;
  }

  /** Memory for one more page: a few thousand pages cost a few allocations, not one each. */
  private take(pageSize: number): Uint8Array {
    const perChunk = Math.max(1, Math.floor(REPLAY_CHUNK_BYTES / pageSize));
    const index = Math.floor(this.used / perChunk);
    const chunk = (this.chunks[index] ??= new Uint8Array(perChunk * pageSize));
    const at = (this.used % perChunk) * pageSize;
    this.used += 1;
    return chunk.subarray(at, at + pageSize);
  }
}

/** Every journal of the folder whose header reads; others are reported and left alone. */
async function readJournals(dataDir: string, warnings: string[]): Promise<JournalOnDisk[]> {
  const journals: JournalOnDisk[] = [];
  for (const name of await listDir(dataDir)) {
    if (!isJournalFileName(name)) continue;
    const file = join(dataDir, name);
    const header = Buffer.alloc(HEADER_BYTES);
    const handle = await open(file, 'r');
    try {
      const { bytesRead } = await handle.read(header, 0, HEADER_BYTES, 0);
      const decoded = decodeHeader(header.subarray(0, bytesRead));
      if ('problem' in decoded) {
        warnings.push(`ignored the journal ${name}: ${decoded.problem}`);
        continue;
      }
      journals.push({ file, header: decoded, size: (await stat(file)).size });
    } finally {
      await handle.close();
    }
  }
  return journals;
}
