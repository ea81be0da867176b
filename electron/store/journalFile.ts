/**
 * The journal's file format (DESIGN.md §3): a header naming the journal's generation and what it
 * continues, then records, each framed with its length and a CRC-32 seeded with the generation (so a
 * record from another journal never checks out here). A record carries whole database pages; a
 * transaction is the run of records up to one flagged `commit`. Reading stops at the first record that
 * is short or does not check out: that torn or corrupt tail, and any uncommitted records before it,
 * are dropped, everything before them kept.
 */
import type { FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';

const MAGIC = Buffer.from('DHJOURNL', 'latin1');
const VERSION = 1;
export const HEADER_BYTES = 40;
const RECORD_FRAME_BYTES = 8;
const BODY_FIXED_BYTES = 12;
/** No record is larger (a commit is journaled in records of a few MiB). */
const MAX_RECORD_BYTES = 256 * 1024 * 1024;

/** What a journal's changes apply to: an image of generation `gen`, or the end of another journal. */
export type JournalBase = { kind: 'image'; gen: number } | { kind: 'journal'; gen: number; length: number };

export interface JournalHeader {
  /** Random, non-zero: also stamped into the image a checkpoint makes from what precedes this journal. */
  gen: number;
  base: JournalBase;
  pageSize: number;
}

/** One database page as written: its 1-based number and its bytes. */
export interface Page {
  pgno: number;
  bytes: Uint8Array;
}

export function encodeHeader(header: JournalHeader): Buffer {
  const out = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(VERSION, 8);
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
  if (version !== VERSION) return { problem: `journal format ${version} is not known to this version` };
  const gen = bytes.readUInt32LE(12);
  const baseGen = bytes.readUInt32LE(20);
  const base: JournalBase =
    bytes.readUInt32LE(16) === 0
      ? { kind: 'image', gen: baseGen }
      : { kind: 'journal', gen: baseGen, length: Number(bytes.readBigUInt64LE(24)) };
  return { gen, base, pageSize: bytes.readUInt32LE(32) };
}

/**
 * One record: the pages `pgnos` (each copied in by `readPage`); `dbPages` (the database's size in pages
 * after the transaction) on the record that commits it, 0 on a part written before the commit.
 */
export function encodeRecord(
  gen: number,
  pgnos: readonly number[],
  pageSize: number,
  dbPages: number,
  readPage: (pgno: number, into: Uint8Array, at: number) => void,
): Buffer {
  const bodyLength = BODY_FIXED_BYTES + pgnos.length * (4 + pageSize);
  const record = Buffer.allocUnsafe(RECORD_FRAME_BYTES + bodyLength);
  const body = record.subarray(RECORD_FRAME_BYTES);
  body.writeUInt32LE(dbPages > 0 ? 1 : 0, 0);
  body.writeUInt32LE(pgnos.length, 4);
  body.writeUInt32LE(dbPages, 8);
  let at = BODY_FIXED_BYTES;
  for (const pgno of pgnos) {
    body.writeUInt32LE(pgno, at);
    readPage(pgno, body, at + 4);
    at += 4 + pageSize;
  }
  record.writeUInt32LE(bodyLength, 0);
  record.writeUInt32LE(crc32(body, gen), 4);
  return record;
}

export interface RecordInfo {
  /** Where the record starts in the file, and where the next one would. */
  start: number;
  end: number;
  /** The database's size in pages after the transaction this record commits; 0 for a part. */
  dbPages: number;
  body: Buffer;
}

/** The pages of a record's body. */
export function* recordPages(body: Buffer, pageSize: number): Generator<Page> {
  const count = body.readUInt32LE(4);
  let at = BODY_FIXED_BYTES;
  for (let i = 0; i < count; i++) {
    yield { pgno: body.readUInt32LE(at), bytes: body.subarray(at + 4, at + 4 + pageSize) };
    at += 4 + pageSize;
  }
}

/**
 * Reads the records of an open journal in order, from just after the header, stopping quietly at the
 * first one that is short or does not check out (a torn or corrupt tail).
 */
export async function* readRecords(
  handle: FileHandle,
  header: JournalHeader,
  fileSize: number,
): AsyncGenerator<RecordInfo> {
  const frame = Buffer.alloc(RECORD_FRAME_BYTES);
  let at = HEADER_BYTES;
  while (at + RECORD_FRAME_BYTES <= fileSize) {
    await handle.read(frame, 0, RECORD_FRAME_BYTES, at);
    const length = frame.readUInt32LE(0);
    const end = at + RECORD_FRAME_BYTES + length;
    if (length < BODY_FIXED_BYTES || length > MAX_RECORD_BYTES || end > fileSize) return;
    const body = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(body, 0, length, at + RECORD_FRAME_BYTES);
    if (bytesRead !== length || crc32(body, header.gen) !== frame.readUInt32LE(4)) return;
    const count = body.readUInt32LE(4);
    if (BODY_FIXED_BYTES + count * (4 + header.pageSize) !== length) return;
    yield { start: at, end, dbPages: body.readUInt32LE(0) === 1 ? body.readUInt32LE(8) : 0, body };
    at = end;
  }
}

/** What a journal holds that counts: up to the end of its last committed transaction. */
export interface JournalExtent {
  /** Byte length of the committed prefix (the header alone when nothing committed). */
  committedLength: number;
  /** The database's size in pages after the last commit; 0 when nothing committed. */
  dbPages: number;
  /** Whether the file ends exactly at its committed prefix (no torn tail, no uncommitted part). */
  clean: boolean;
  commits: number;
}

/** First pass over a journal: where its committed prefix ends (records are checked, not kept). */
export async function measureJournal(
  handle: FileHandle,
  header: JournalHeader,
  fileSize: number,
): Promise<JournalExtent> {
  let committedLength = HEADER_BYTES;
  let dbPages = 0;
  let commits = 0;
  for await (const record of readRecords(handle, header, fileSize)) {
    if (record.dbPages > 0) {
      committedLength = record.end;
      dbPages = record.dbPages;
      commits += 1;
    }
  }
  return { committedLength, dbPages, clean: committedLength === fileSize, commits };
}

/** Second pass: hands the pages of each record of the committed prefix to `apply`, in order. */
export async function applyJournal(
  handle: FileHandle,
  header: JournalHeader,
  committedLength: number,
  apply: (pages: Page[]) => void | Promise<void>,
): Promise<void> {
  for await (const record of readRecords(handle, header, committedLength)) {
    await apply([...recordPages(record.body, header.pageSize)]);
  }
}
