/**
 * Reading a journal's records back (the format is journalFile.ts): framed, checked against their
 * checksum, inflated, and split into their pages. Reading stops quietly at the first record that is
 * short or does not check out: a torn or corrupt tail.
 *
 * A journal is read a few MiB at a time, and one batch ahead of the records handed out: with a worker
 * (offThread.ts), the next batch inflates on another core while the caller applies this one.
 */
import type { FileHandle } from 'node:fs/promises';
import { crc32, inflateRawSync } from 'node:zlib';
import {
  BODY_FIXED_BYTES,
  COMMITS,
  DEFLATED,
  HEADER_BYTES,
  type JournalHeader,
  type JournalPage,
  MAX_PAGE_NUMBER,
  MAX_RECORD_BYTES,
  PAGE_ENTRY_BYTES,
  RECORD_FRAME_BYTES,
  RUN_HEADER_BYTES,
  WHOLE_PAGE,
} from './journalFile';
import type { Inflated, OffThread } from './offThread';

/** Journals are read this many bytes at a time (more when a record is larger). */
const READ_BYTES = 1024 * 1024;
/** Bytes of a deflated body before its deflated pages: the fixed fields, then the inflated length. */
const DEFLATED_PREFIX_BYTES = BODY_FIXED_BYTES + 4;

export interface RecordInfo {
  /** Where the next record would start in the file. */
  end: number;
  /** The database's size in pages after the transaction this record commits; 0 for a part. */
  dbPages: number;
  /** Its body, inflated if it was stored deflated. */
  body: Buffer;
}

/** A checked record: where it is, what it commits, and its pages. */
export interface JournalRecord extends RecordInfo {
  pages: JournalPage[];
}

/**
 * Reads the records of an open journal in order, from just after the header, stopping quietly at the
 * first one that is short or does not check out (a torn or corrupt tail). Deflated records are inflated
 * on `offThread` when one is given.
 */
export async function* readRecords(
  handle: FileHandle,
  header: JournalHeader,
  fileSize: number,
  offThread: OffThread | null = null,
): AsyncGenerator<JournalRecord> {
  const frames = new FrameReader(handle, header.gen, fileSize);
  // Batches read ahead of the one handed out: the worker inflates one while the caller applies
  // another, and this thread inflates a third itself rather than wait for the worker.
  const batches: Promise<Batch>[] = [];
  let onWorker = 0;
  for (;;) {
    while (!frames.done && batches.length < 3) {
      const read = await frames.next();
      if (read.length === 0) continue;
      const worker = offThread && onWorker < 2 ? offThread : null;
      if (worker) onWorker += 1;
      const batch = recordsOf(read, header, worker);
      batches.push(worker ? batch.finally(() => (onWorker -= 1)) : batch);
    }
    const batch = batches.shift();
    if (!batch) return;
    const { records, broken } = await batch;
    yield* records;
    if (broken) return;
  }
}

/** A record as stored, its checksum checked, and where the next one starts. */
interface Frame {
  end: number;
  stored: Buffer;
}

/** The records of a read, up to the first that does not check out (`broken` then). */
interface Batch {
  records: JournalRecord[];
  broken: boolean;
}

/** Reads a journal's framed records a few MiB at a time, checking each one's checksum. */
class FrameReader {
  done = false;
  private at = HEADER_BYTES;

  constructor(
    private readonly handle: FileHandle,
    private readonly gen: number,
    private readonly fileSize: number,
  ) {}

  /** The whole records of the next read; `done` once the journal ends or a record does not check out. */
  async next(): Promise<Frame[]> {
    const { fileSize } = this;
    let want = READ_BYTES;
    for (;;) {
      if (this.at + RECORD_FRAME_BYTES > fileSize) {
        this.done = true;
        return [];
      }
      const buffer = await this.read(this.at, Math.min(want, fileSize - this.at));
      const frames = this.framesIn(buffer);
      if (frames.length > 0 || this.done) return frames;
      // A record larger than a read: read it whole.
      want = RECORD_FRAME_BYTES + buffer.readUInt32LE(0);
    }
  }

  /** The whole records at the start of `buffer` (read at `this.at`), moving past them. */
  private framesIn(buffer: Buffer): Frame[] {
    const frames: Frame[] = [];
    let from = 0;
    while (from + RECORD_FRAME_BYTES <= buffer.length) {
      const length = buffer.readUInt32LE(from);
      const end = this.at + from + RECORD_FRAME_BYTES + length;
      if (length < BODY_FIXED_BYTES || length > MAX_RECORD_BYTES || end > this.fileSize) {
        this.done = true;
        break;
      }
      if (from + RECORD_FRAME_BYTES + length > buffer.length) break;
      const stored = buffer.subarray(from + RECORD_FRAME_BYTES, from + RECORD_FRAME_BYTES + length);
      if (crc32(stored, this.gen) !== buffer.readUInt32LE(from + 4)) {
        this.done = true;
        break;
      }
      frames.push({ end, stored });
      from += RECORD_FRAME_BYTES + length;
    }
    // Fewer bytes than a frame's header were read: the file is shorter than it said (it shrank).
    if (frames.length === 0 && buffer.length < RECORD_FRAME_BYTES) this.done = true;
    this.at += from;
    return frames;
  }

  private async read(from: number, size: number): Promise<Buffer> {
    const buffer = Buffer.allocUnsafe(size);
    const { bytesRead } = await this.handle.read(buffer, 0, size, from);
    // The file was shorter than it said (it shrank meanwhile): only the whole records read count.
    if (bytesRead < size) this.done = true;
    return buffer.subarray(0, bytesRead);
  }
}

/** The records of `frames`: inflated (on `offThread` if given) and split into pages. */
async function recordsOf(
  frames: Frame[],
  header: JournalHeader,
  offThread: OffThread | null,
): Promise<Batch> {
  const inflated = offThread ? await inflateOffThread(frames, offThread) : null;
  const records: JournalRecord[] = [];
  let slot = 0;
  for (const { end, stored } of frames) {
    let body: Buffer | null;
    if (!isDeflated(stored)) body = stored;
    else if (inflated && stored.length >= DEFLATED_PREFIX_BYTES) {
      body = inflated.bodies[slot++] ?? null;
      if (body) {
        stored.copy(body, 0, 0, BODY_FIXED_BYTES);
        body.writeUInt32LE(stored.readUInt32LE(0) & ~DEFLATED, 0);
      }
    } else body = inflatedBody(stored);
    const pages = body && recordPages(body, header);
    if (!body || !pages) return { records, broken: true };
    const dbPages = (body.readUInt32LE(0) & COMMITS) !== 0 ? body.readUInt32LE(8) : 0;
    records.push({ end, dbPages, body, pages });
  }
  return { records, broken: false };
}

const isDeflated = (stored: Buffer): boolean => (stored.readUInt32LE(0) & DEFLATED) !== 0;

/**
 * The bodies of the deflated records of `frames` (those long enough to be one), inflated on the worker
 * into bodies whose fixed fields are left to fill: null where one does not inflate to its length; null
 * for all of them when the worker failed (they are inflated here instead).
 */
async function inflateOffThread(
  frames: Frame[],
  offThread: OffThread,
): Promise<{ bodies: (Buffer | null)[] } | null> {
  const deflated = frames.filter(
    ({ stored }) => isDeflated(stored) && stored.length >= DEFLATED_PREFIX_BYTES,
  );
  if (deflated.length === 0) return { bodies: [] };
  let total = 0;
  for (const { stored } of deflated) {
    // A length no record has (only a bug could write it): the sizes are left to the checks here.
    if (stored.readUInt32LE(BODY_FIXED_BYTES) > MAX_RECORD_BYTES) return null;
    total += stored.length - DEFLATED_PREFIX_BYTES;
  }
  // Memory of its own, handed to the worker whole.
  const input = Buffer.allocUnsafeSlow(total);
  const spans: number[] = [];
  let at = 0;
  for (const { stored } of deflated) {
    const length = stored.copy(input, at, DEFLATED_PREFIX_BYTES);
    spans.push(at, at + length, stored.readUInt32LE(BODY_FIXED_BYTES));
    at += length;
  }
  let answer: Inflated;
  try {
    answer = await offThread.inflate(input, spans, BODY_FIXED_BYTES);
  } catch {
    return null;
  }
  const bodies: (Buffer | null)[] = [];
  let from = 0;
  for (let i = 0; i < deflated.length; i++) {
    const to = from + BODY_FIXED_BYTES + spans[i * 3 + 2]!;
    bodies.push(answer.inflated[i] === 1 ? answer.output.subarray(from, to) : null);
    from = to;
  }
  return { bodies };
}

/**
 * A stored body as `recordPages` reads it: inflated when it was deflated (its fixed fields, then the
 * pages), or null when it does not inflate to the length it gives (a forged checksum, or a bug).
 * Synchronously: zlib's asynchronous calls cost the event loop more per record than inflating does.
 */
function inflatedBody(stored: Buffer): Buffer | null {
  if (!isDeflated(stored)) return stored;
  if (stored.length < DEFLATED_PREFIX_BYTES) return null;
  const payloadLength = stored.readUInt32LE(BODY_FIXED_BYTES);
  let payload: Buffer;
  try {
    payload = inflateRawSync(stored.subarray(DEFLATED_PREFIX_BYTES), { maxOutputLength: MAX_RECORD_BYTES });
  } catch {
    return null;
  }
  if (payload.length !== payloadLength) return null;
  const body = Buffer.allocUnsafe(BODY_FIXED_BYTES + payloadLength);
  stored.copy(body, 0, 0, BODY_FIXED_BYTES);
  body.writeUInt32LE(stored.readUInt32LE(0) & ~DEFLATED, 0);
  payload.copy(body, BODY_FIXED_BYTES);
  return body;
}

/**
 * The pages of a record's body, or null when they do not fit it (only a bug or a forged checksum
 * could do that: the record is treated as a corrupt tail).
 */
function recordPages(body: Buffer, header: JournalHeader): JournalPage[] | null {
  const { pageSize } = header;
  const count = body.readUInt32LE(4);
  const pages: JournalPage[] = [];
  let at = BODY_FIXED_BYTES;
  for (let i = 0; i < count; i++) {
    if (at + PAGE_ENTRY_BYTES > body.length) return null;
    const pgno = body.readUInt32LE(at);
    if (pgno < 1 || pgno > MAX_PAGE_NUMBER) return null;
    if (header.version === 1) {
      // Format 1 had no run count: every page whole, right after its number.
      if (at + 4 + pageSize > body.length) return null;
      pages.push({ pgno, whole: true, start: at + 4, end: at + 4 + pageSize });
      at += 4 + pageSize;
      continue;
    }
    const runCount = body.readUInt32LE(at + 4);
    at += PAGE_ENTRY_BYTES;
    if (runCount === WHOLE_PAGE) {
      if (at + pageSize > body.length) return null;
      pages.push({ pgno, whole: true, start: at, end: at + pageSize });
      at += pageSize;
      continue;
    }
    const start = at;
    for (let run = 0; run < runCount; run++) {
      if (at + RUN_HEADER_BYTES > body.length) return null;
      const offset = body.readUInt32LE(at);
      const length = body.readUInt32LE(at + 4);
      if (offset + length > pageSize || at + RUN_HEADER_BYTES + length > body.length) return null;
      at += RUN_HEADER_BYTES + length;
    }
    pages.push({ pgno, whole: false, start, end: at });
  }
  return at === body.length ? pages : null;
}
