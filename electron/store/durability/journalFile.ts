/**
 * The journal's file format (docs/storage.md): a header naming the journal's generation and what it
 * continues, then records, each framed with its length and a CRC-32 seeded with the generation (so a
 * record from another journal never checks out here). A record carries database pages, each whole or
 * as the runs of bytes that changed since the previous commit; a transaction is the run of records up
 * to one flagged `commit`. Reading stops at the first record that
 * is short or does not check out: that torn or corrupt tail, and any uncommitted records before it,
 * are dropped, everything before them kept. Reading records back is journalReading.ts.
 */
import { promisify } from 'node:util';
import { crc32, deflateRaw } from 'node:zlib';

const MAGIC = Buffer.from('DHJOURNL', 'latin1');
/** Format 2 writes a changed page as the runs of bytes that changed; format 1 (whole pages) still reads. */
export const JOURNAL_VERSION = 2;
const READABLE_VERSIONS = [1, 2];
export const HEADER_BYTES = 40;
export const RECORD_FRAME_BYTES = 8;
export const BODY_FIXED_BYTES = 12;
/** Flag bits of a record body's first field: it commits its transaction; its pages are deflated. */
export const COMMITS = 1;
export const DEFLATED = 2;
/** No record is larger (a commit is journaled in records of a few MiB). */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;
/** SQLite's largest page number (its default max_page_count). */
export const MAX_PAGE_NUMBER = 0x3fffffff;

/** What a journal's changes apply to: an image of generation `gen`, or the end of another journal. */
export type JournalBase = { kind: 'image'; gen: number } | { kind: 'journal'; gen: number; length: number };

export interface JournalHeader {
  /** Random, non-zero: also stamped into the image a checkpoint makes from what precedes this journal. */
  gen: number;
  base: JournalBase;
  pageSize: number;
  /** The format its records are in (new journals: the current one). */
  version?: number;
}

export function encodeHeader(header: JournalHeader): Buffer {
  const out = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(header.version ?? JOURNAL_VERSION, 8);
  out.writeUInt32LE(header.gen, 12);
  out.writeUInt32LE(header.base.kind === 'image' ? 0 : 1, 16);
  out.writeUInt32LE(header.base.gen, 20);
  out.writeBigUInt64LE(BigInt(header.base.kind === 'journal' ? header.base.length : 0), 24);
  out.writeUInt32LE(header.pageSize, 32);
  out.writeUInt32LE(crc32(out.subarray(0, 36)), 36);
  return out;
}

/** The header in `bytes`, or why it is not one. */
export function decodeHeader(bytes: Buffer): JournalHeader | { problem: string } {
  if (bytes.length < HEADER_BYTES) return { problem: 'shorter than a journal header' };
  if (!bytes.subarray(0, 8).equals(MAGIC)) return { problem: 'not a Dataset Health journal' };
  if (bytes.readUInt32LE(36) !== crc32(bytes.subarray(0, 36))) return { problem: 'header checksum mismatch' };
  const version = bytes.readUInt32LE(8);
  if (!READABLE_VERSIONS.includes(version))
    return { problem: `journal format ${version} is not known to this version` };
  const gen = bytes.readUInt32LE(12);
  const baseGen = bytes.readUInt32LE(20);
  const base: JournalBase =
    bytes.readUInt32LE(16) === 0
      ? { kind: 'image', gen: baseGen }
      : { kind: 'journal', gen: baseGen, length: Number(bytes.readBigUInt64LE(24)) };
  return { gen, base, pageSize: bytes.readUInt32LE(32), version };
}

/** A page entry's run count that means "the whole page follows". */
export const WHOLE_PAGE = 0xffffffff;
/** Bytes of a page entry before its contents: the page number and its run count. */
export const PAGE_ENTRY_BYTES = 8;
/** Bytes of a run's header: its offset in the page and its length. */
export const RUN_HEADER_BYTES = 8;
/** Runs up to this long are copied byte by byte when applied. */
const SHORT_RUN_BYTES = 64;
/** Unchanged bytes shorter than this between two changed ones stay in one run (a run header costs as much). */
const RUN_GAP_BYTES = RUN_HEADER_BYTES;

/** The most bytes a record of `pages` pages can take (every page whole). */
export const recordBytesFor = (pages: number, pageSize: number): number =>
  RECORD_FRAME_BYTES + BODY_FIXED_BYTES + pages * (PAGE_ENTRY_BYTES + pageSize);

/**
 * One record: the pages `pgnos` (each copied in by `readPage`); `dbPages` (the database's size in pages
 * after the transaction) on the record that commits it, 0 on a part written before the commit. A page
 * whose bytes as of the previous commit `baseOf` knows is written as the runs of bytes that changed (a
 * row updated in a page of 4 KiB changes a few hundred bytes of it), else whole.
 */
export function encodeRecord(
  gen: number,
  pgnos: readonly number[],
  pageSize: number,
  dbPages: number,
  readPage: (pgno: number, into: Uint8Array, at: number) => void,
  baseOf: (pgno: number) => Uint8Array | undefined = () => undefined,
): EncodedRecord {
  const record = Buffer.allocUnsafe(recordBytesFor(pgnos.length, pageSize));
  let wholeBytes = 0;
  const body = record.subarray(RECORD_FRAME_BYTES);
  body.writeUInt32LE(dbPages > 0 ? COMMITS : 0, 0);
  body.writeUInt32LE(pgnos.length, 4);
  body.writeUInt32LE(dbPages, 8);
  const page = Buffer.allocUnsafe(pageSize);
  let at = BODY_FIXED_BYTES;
  for (const pgno of pgnos) {
    body.writeUInt32LE(pgno, at);
    const base = baseOf(pgno);
    if (base) {
      readPage(pgno, page, 0);
      const patch = writePatch(page, base, body, at + PAGE_ENTRY_BYTES);
      if (patch >= 0) {
        at += PAGE_ENTRY_BYTES + patch;
        continue;
      }
      page.copy(body, at + PAGE_ENTRY_BYTES);
    } else {
      readPage(pgno, body, at + PAGE_ENTRY_BYTES);
    }
    body.writeUInt32LE(WHOLE_PAGE, at + 4);
    at += PAGE_ENTRY_BYTES + pageSize;
    wholeBytes += pageSize;
  }
  record.writeUInt32LE(at, 0);
  record.writeUInt32LE(crc32(body.subarray(0, at), gen), 4);
  return { record: record.subarray(0, RECORD_FRAME_BYTES + at), changeBytes: at, wholeBytes };
}

/** A record as `encodeRecord` made it, and what it holds. */
export interface EncodedRecord {
  /** Framed, ready to append. */
  record: Buffer;
  /** Its body's bytes: what replaying it costs, compressed or not (the checkpoint threshold counts these). */
  changeBytes: number;
  /** Bytes of whole pages in it (new pages, or pages that changed too much to patch). */
  wholeBytes: number;
}

const deflateRawAsync = promisify(deflateRaw);
/** Records smaller than this are not worth a trip to the thread pool. */
const MIN_DEFLATE_BYTES = 1024;

/**
 * The record as it goes to disk: deflated (level 1, on libuv's thread pool) when it belongs to a
 * commit of ordinary size or is mostly runs of changed bytes (index entries, keys and cell pointers
 * deflate to about a third; a poll's new and split pages to about half), as it is when it is mostly
 * whole pages of a large commit (a first sync or an import: half their size at best, for CPU the
 * sync cannot spare and more work at every start).
 */
export async function recordForDisk(
  encoded: EncodedRecord,
  gen: number,
  largeCommit: boolean,
): Promise<Buffer> {
  const { record, changeBytes, wholeBytes } = encoded;
  if (changeBytes < MIN_DEFLATE_BYTES || (largeCommit && wholeBytes * 2 > changeBytes)) return record;
  const body = record.subarray(RECORD_FRAME_BYTES);
  let deflated: Buffer;
  try {
    deflated = await deflateRawAsync(body.subarray(BODY_FIXED_BYTES), { level: 1 });
  } catch {
    // Compression is only a saving (out of memory, say): the record goes as it is.
    return record;
  }
  const storedLength = BODY_FIXED_BYTES + 4 + deflated.length;
  if (storedLength >= body.length) return record;
  const stored = Buffer.allocUnsafe(RECORD_FRAME_BYTES + storedLength);
  const storedBody = stored.subarray(RECORD_FRAME_BYTES);
  body.copy(storedBody, 0, 0, BODY_FIXED_BYTES);
  storedBody.writeUInt32LE(body.readUInt32LE(0) | DEFLATED, 0);
  storedBody.writeUInt32LE(body.length - BODY_FIXED_BYTES, BODY_FIXED_BYTES);
  deflated.copy(storedBody, BODY_FIXED_BYTES + 4);
  stored.writeUInt32LE(storedLength, 0);
  stored.writeUInt32LE(crc32(storedBody, gen), 4);
  return stored;
}

/**
 * Writes the runs where `page` differs from `base` into `out` at `at` (after the entry's run count, at
 * `at - 4`), and returns their bytes; -1 when they would not be smaller than the whole page (nothing
 * useful written then).
 */
function writePatch(page: Buffer, base: Uint8Array, out: Buffer, at: number): number {
  const size = page.length;
  let runs = 0;
  let written = 0;
  let i = 0;
  while (i < size) {
    i = firstDifference(page, base, i);
    if (i >= size) break;
    // Extend the run over changed bytes and over short unchanged gaps between them.
    let end = i + 1;
    let same = 0;
    for (let j = end; j < size && same < RUN_GAP_BYTES; j++) {
      if (page[j] !== base[j]) {
        end = j + 1;
        same = 0;
      } else same += 1;
    }
    const length = end - i;
    if (written + RUN_HEADER_BYTES + length >= size) return -1;
    out.writeUInt32LE(i, at + written);
    out.writeUInt32LE(length, at + written + 4);
    page.copy(out, at + written + RUN_HEADER_BYTES, i, end);
    written += RUN_HEADER_BYTES + length;
    runs += 1;
    i = end;
  }
  out.writeUInt32LE(runs, at - 4);
  return written;
}

/** The first offset from `from` where `a` and `b` differ (their length when they do not). */
function firstDifference(a: Buffer, b: Uint8Array, from: number): number {
  // Most of a page is unchanged: compare 64 bytes at a time first (a native compare), then bytes.
  let i = from;
  while (i + 64 <= a.length && a.compare(b, i, i + 64, i, i + 64) === 0) i += 64;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
}

/**
 * One page of a record: its number and where its contents lie in the record's body, whole (the page's
 * bytes) or as the runs of bytes that changed since the previous commit (see `applyPage`). Offsets,
 * not views: a journal of small changes has millions of pages, and a view each costs more than
 * applying it.
 */
export interface JournalPage {
  pgno: number;
  whole: boolean;
  start: number;
  end: number;
}

/**
 * Writes `page` (of the record whose body is `body`) over the page at `at` in `target`, which holds
 * the page as of the previous commit; `before` hears each range just before it is overwritten.
 */
export function applyPage(
  body: Buffer,
  page: JournalPage,
  target: Uint8Array,
  at: number,
  before?: (from: number, length: number) => void,
): void {
  if (page.whole) {
    before?.(at, page.end - page.start);
    body.copy(target, at, page.start, page.end);
    return;
  }
  for (let i = page.start; i < page.end;) {
    const offset = body.readUInt32LE(i);
    const length = body.readUInt32LE(i + 4);
    before?.(at + offset, length);
    const from = i + RUN_HEADER_BYTES;
    // Most runs are a few dozen bytes (a changed hash, a cell header): a loop beats a native copy's call.
    if (length <= SHORT_RUN_BYTES) for (let j = 0; j < length; j++) target[at + offset + j] = body[from + j]!;
    else body.copy(target, at + offset, from, from + length);
    i = from + length;
  }
}

/** What a journal holds that counts: up to the end of its last committed transaction. */
export interface JournalExtent {
  /** Byte length of the committed prefix (the header alone when nothing committed). */
  committedLength: number;
  /** The database's size in pages after the last commit; 0 when nothing committed. */
  dbPages: number;
  commits: number;
  /** The bodies of its committed records, as replayed (inflated): what the checkpoint threshold counts. */
  changeBytes: number;
}
