/**
 * Appending to one journal file (format: journalFile.ts). Records are queued in memory and written
 * and fsynced together by `sync()` (the group commit: the commitWriter calls it a debounce window after
 * the first commit it holds). A failed write (a full disk) is cut off the file again, so the journal
 * never keeps a half record in front of later ones, and the records stay queued for the next try:
 * nothing committed is lost while the process lives.
 */
import { type FileHandle, open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { DATABASE_FILE, syncDirectory } from './files';
import { HEADER_BYTES, type JournalHeader, encodeHeader } from './journalFile';

const JOURNAL_PREFIX = `${DATABASE_FILE}.journal-`;

/** `health.sqlite.journal-<generation in hex>`: never `-journal` or `-wal`, which SQLite itself would read. */
export function journalFileName(gen: number): string {
  return `${JOURNAL_PREFIX}${gen.toString(16).padStart(8, '0')}`;
}

/** Where a new journal is written until its first records are fsynced. */
const newJournalFile = (file: string): string => `${file}.new`;

export function isNewJournalFileName(name: string): boolean {
  return name.startsWith(JOURNAL_PREFIX) && name.endsWith('.new');
}

export function isJournalFileName(name: string): boolean {
  return name.startsWith(JOURNAL_PREFIX) && /^[0-9a-f]{8}$/.test(name.slice(JOURNAL_PREFIX.length));
}

/** Opens a journal file; a test passes one that opens `/dev/full` to get a real ENOSPC. */
export type OpenJournalFile = (file: string, flags: 'r+' | 'w') => Promise<FileHandle>;
const openFile: OpenJournalFile = (file, flags) => open(file, flags, 0o600);

export class JournalWriter {
  private queue: Buffer[] = [];
  private queuedBytes = 0;
  /** Bytes being written by the sync in progress. */
  private inFlight = 0;
  /** Bytes on disk and fsynced. */
  private durable: number;
  /** End of the last committed transaction, counting queued records. */
  private committed: number;
  /** Change bytes (record bodies before compression) up to that end, and appended since. */
  private committedChanges: number;
  private appendedChanges: number;
  /** The sync in progress; syncs run one at a time. */
  private syncing: Promise<void> | undefined;
  private closed = false;

  private constructor(
    readonly dataDir: string,
    readonly header: JournalHeader,
    private handle: FileHandle | undefined,
    length: number,
    changeBytes: number,
    private previous: JournalWriter | undefined,
    private readonly openJournal: OpenJournalFile,
  ) {
    this.durable = length;
    // A new journal's header is its first bytes; it counts as committed (an empty journal is whole).
    this.committed = handle ? length : HEADER_BYTES;
    this.committedChanges = changeBytes;
    this.appendedChanges = changeBytes;
    if (!handle) {
      this.queue.push(encodeHeader(header));
      this.queuedBytes = HEADER_BYTES;
    }
  }

  get file(): string {
    return join(this.dataDir, journalFileName(this.header.gen));
  }

  /**
   * A new journal, created on disk at its first sync (header first, fsynced, and the folder entry).
   * `previous` is the journal it continues: its records reach disk before any of this one's.
   */
  static next(
    dataDir: string,
    header: JournalHeader,
    previous?: JournalWriter,
    openJournal: OpenJournalFile = openFile,
  ): JournalWriter {
    return new JournalWriter(dataDir, header, undefined, 0, 0, previous, openJournal);
  }

  /**
   * Continues an existing journal after its committed prefix (`committedLength` bytes, holding
   * `changeBytes` of changes); a torn or uncommitted tail is cut off.
   */
  static async resume(
    dataDir: string,
    header: JournalHeader,
    committedLength: number,
    changeBytes: number,
    openJournal: OpenJournalFile = openFile,
  ): Promise<JournalWriter> {
    const handle = await openJournal(join(dataDir, journalFileName(header.gen)), 'r+');
    try {
      const { size } = await handle.stat();
      if (size !== committedLength) {
        await handle.truncate(committedLength);
        await handle.sync();
      }
    } catch (error) {
      await handle.close().catch(() => {});
      throw error;
    }
    return new JournalWriter(dataDir, header, handle, committedLength, changeBytes, undefined, openJournal);
  }

  /**
   * Queues a record holding `changeBytes` of changes (its body before compression); `commits` marks
   * the end of a transaction.
   */
  append(record: Buffer, commits: boolean, changeBytes: number): void {
    if (this.closed) throw new Error('the journal is closed');
    this.queue.push(record);
    this.queuedBytes += record.length;
    this.appendedChanges += changeBytes;
    if (commits) {
      this.committed = this.length;
      this.committedChanges = this.appendedChanges;
    }
  }

  /** Change bytes of the committed transactions: what replaying them costs (the checkpoint threshold). */
  get committedChangeBytes(): number {
    return this.committedChanges;
  }

  /** Length with everything queued. */
  get length(): number {
    return this.durable + this.inFlight + this.queuedBytes;
  }

  /** End of the last committed transaction. */
  get committedLength(): number {
    return this.committed;
  }

  /** Bytes not yet on disk. */
  get pending(): number {
    return this.inFlight + this.queuedBytes;
  }

  /** Writes and fsyncs what is queued (waiting for a sync in progress first). Rejects when the disk does. */
  async sync(): Promise<void> {
    while (this.syncing) await this.syncing.catch(() => {});
    if (this.queue.length === 0 || this.closed) return;
    this.syncing = this.writeQueued();
    try {
      await this.syncing;
    } finally {
      this.syncing = undefined;
    }
  }

  private async writeQueued(): Promise<void> {
    if (this.previous) {
      await this.previous.sync();
      this.previous = undefined;
    }
    // A new journal's file is created by its first write, under a temp name until its header and first
    // records are fsynced (a kill in between leaves no headless journal); after a failed write it is
    // opened again.
    const creating = this.durable === 0;
    this.handle ??= await this.openJournal(
      creating ? newJournalFile(this.file) : this.file,
      creating ? 'w' : 'r+',
    );
    const handle = this.handle;
    // Written as they are queued (one writev), not copied into one buffer first: at 100k datasets a
    // poll's records are several MiB, and the copy doubled them in memory and took 20–30 ms.
    const records = this.queue;
    const total = records.reduce((sum, record) => sum + record.length, 0);
    this.queue = [];
    this.queuedBytes = 0;
    this.inFlight = total;
    try {
      let written = 0;
      let rest: Buffer[] = records;
      while (written < total) {
        const { bytesWritten } = await handle.writev(rest, this.durable + written);
        // A disk that takes nothing and reports no error: retried later like any failed write.
        if (bytesWritten === 0) throw new Error('the disk wrote none of the journal records');
        written += bytesWritten;
        rest = unwritten(rest, bytesWritten);
      }
      await handle.datasync();
      if (creating) {
        await rename(newJournalFile(this.file), this.file);
        await syncDirectory(this.dataDir);
      }
    } catch (error) {
      // Leave no partial record behind: the next try writes the whole batch again at the same place,
      // through a new handle (the disk, or the file, may have been replaced meanwhile).
      await handle.truncate(this.durable).catch(() => {});
      await handle.close().catch(() => {});
      this.handle = undefined;
      this.queue = [...records, ...this.queue];
      this.queuedBytes += total;
      throw error;
    } finally {
      this.inFlight = 0;
    }
    this.durable += total;
  }

  /** Stops appending; what is queued and not synced is dropped (sync first to keep it). */
  async close(): Promise<void> {
    if (this.closed) return;
    while (this.syncing) await this.syncing.catch(() => {});
    this.closed = true;
    await this.handle?.close();
  }
}

/** What is left of `buffers` once their first `bytes` are written (a short write: rare on a file). */
export function unwritten(buffers: Buffer[], bytes: number): Buffer[] {
  let skip = bytes;
  let first = 0;
  while (first < buffers.length && skip >= buffers[first]!.length) skip -= buffers[first++]!.length;
  const rest = buffers.slice(first);
  if (skip > 0 && rest.length > 0) rest[0] = rest[0]!.subarray(skip);
  return rest;
}
