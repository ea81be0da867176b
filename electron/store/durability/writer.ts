/**
 * When the database reaches disk (docs/storage.md): the journal writer. Each commit's pages become one
 * journal record, queued at once and written and fsynced with the others of its debounce window (a
 * group commit). A disk that refuses a write (full, gone) is reported through `problem` and retried;
 * what was committed stays queued in memory meanwhile. Checkpoints, which fold the journals into a new
 * image, are checkpoint.ts's; opening (replaying what is on disk) is opening.ts's.
 */
import {
  type CheckpointHost,
  type CheckpointOptions,
  Checkpoints,
  type PersistStats,
  type PersistedDatabase,
  newGen,
} from './checkpoint';
import { JournalWriter, type OpenJournalFile } from './journal';
import { JOURNAL_VERSION, encodeRecord, recordBytesFor, recordForDisk } from './journalFile';
import type { LoadedDatabase } from './opening';
import type { PageCapture, PendingCommit } from './pageCapture';

export { type PersistStats, type PersistedDatabase, checkpointThreshold } from './checkpoint';

export interface PersistLogger {
  warn(message: string): void;
  error(message: string): void;
}

export interface PersistOptions extends CheckpointOptions {
  /** How long after a commit the journal is fsynced; commits within the window share one write. */
  debounceMs: number;
  log: PersistLogger;
  /** How journal files are opened (tests: a disk that refuses writes). */
  openJournal?: OpenJournalFile;
}

/** A commit's pages go to the journal in records of at most this many bytes (bounds memory). */
const RECORD_BYTES = 4 * 1024 * 1024;
/** A commit of more pages than this (a first sync, an import) keeps its whole pages uncompressed. */
const LARGE_COMMIT_BYTES = 8 * 1024 * 1024;
/** Queued journal bytes past this are written at once instead of at the end of the debounce window. */
const EAGER_SYNC_BYTES = 8 * 1024 * 1024;
/** How soon a write the disk refused is tried again. */
const RETRY_MS = 5_000;

/** What the disk refused, since when, and what waits in memory meanwhile. */
export interface PersistProblem {
  message: string;
  since: Date;
  pendingBytes: number;
}

/** Lets timers and I/O run between two records of a large commit. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class CommitWriter {
  private journal: JournalWriter;
  private readonly checkpoints: Checkpoints;
  private timer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Commits not journaled yet, oldest first, and their pages' bytes. */
  private pending: PendingCommit[] = [];
  private pendingBytes = 0;
  /** The journal work in progress (journaling, syncing, switching journals): one at a time. */
  private queue: Promise<void> = Promise.resolve();
  private currentProblem: PersistProblem | null = null;
  private readonly listeners = new Set<(problem: PersistProblem | null) => void>();
  readonly stats: PersistStats = {
    commits: 0,
    pages: 0,
    journalBytes: 0,
    checkpoints: 0,
    checkpointBytes: 0,
  };

  private constructor(
    private readonly dataDir: string,
    private readonly capture: PageCapture,
    private readonly db: PersistedDatabase,
    private readonly options: PersistOptions,
    journal: JournalWriter,
    unfolded: JournalWriter[],
    imageBytes: number,
    opening: { imageOutdated: boolean; checkpointWhenOpen: boolean },
  ) {
    this.journal = journal;
    this.checkpoints = new Checkpoints(
      this.checkpointHost(),
      options,
      unfolded,
      imageBytes,
      opening.imageOutdated,
      opening.checkpointWhenOpen,
    );
  }

  /** What a checkpoint reaches of this writer (its journal, its queue, its pending commits). */
  private checkpointHost(): CheckpointHost {
    return {
      dataDir: this.dataDir,
      capture: this.capture,
      db: this.db,
      stats: this.stats,
      openJournal: this.options.openJournal,
      journal: () => this.journal,
      useJournal: (next) => {
        this.journal = next;
      },
      pendingCommits: () => this.pending.length,
      exclusive: (work) => this.exclusive(work),
      journalPending: () => this.journalPending(),
      journalFileState: () => this.journalFileState(),
      dropPending: () => {
        this.pending = [];
        this.pendingBytes = 0;
      },
      refused: (error) => this.refused(error),
      warn: (message) => this.options.log.warn(message),
    };
  }

  /** Continues from what was loaded: appends to the last journal replayed, or starts one on the image. */
  static async start(
    dataDir: string,
    loaded: Pick<LoadedDatabase<unknown>, 'chain' | 'imageFile' | 'imageGen' | 'source'>,
    imageBytes: number,
    capture: PageCapture,
    db: PersistedDatabase,
    options: PersistOptions,
  ): Promise<CommitWriter> {
    const links = loaded.chain;
    const lastLink = links[links.length - 1];
    // A journal of an older format is continued by a new one rather than appended to in another format.
    const last =
      (lastLink?.journal.header.version ?? JOURNAL_VERSION) === JOURNAL_VERSION ? lastLink : undefined;
    const closedLinks = last ? links.slice(0, -1) : links;
    const journal = last
      ? await JournalWriter.resume(
          dataDir,
          last.journal.header,
          last.extent.committedLength,
          last.extent.changeBytes,
          options.openJournal,
        )
      : JournalWriter.next(
          dataDir,
          {
            gen: newGen(),
            base: lastLink
              ? { kind: 'journal', gen: lastLink.journal.header.gen, length: lastLink.extent.committedLength }
              : { kind: 'image', gen: loaded.imageGen },
            pageSize: capture.pageSize,
          },
          undefined,
          options.openJournal,
        );
    // Journals before the last are complete and closed: the next checkpoint reads them from disk.
    const unfolded = await Promise.all(
      closedLinks.map((link) =>
        JournalWriter.resume(
          dataDir,
          link.journal.header,
          link.extent.committedLength,
          link.extent.changeBytes,
        ),
      ),
    );
    await Promise.all(unfolded.map((writer) => writer.close()));
    const commitWriter = new CommitWriter(dataDir, capture, db, options, journal, unfolded, imageBytes, {
      // No current image to build on (none yet, the main one unusable, or one from before journals):
      // the next clean close writes one even if nothing is committed meanwhile.
      imageOutdated: loaded.source !== 'main' || loaded.imageGen === 0,
      // Opened from the backup, or an image from before journals: write a proper image once open.
      checkpointWhenOpen: loaded.source === 'backup' || (loaded.imageFile !== null && loaded.imageGen === 0),
    });
    // Or a journal past its threshold (a kill before the checkpoint).
    commitWriter.checkpoints.callForOneWhenOpen();
    return commitWriter;
  }

  /** The store is open (migrated): a checkpoint that opening called for starts now. */
  opened(): void {
    this.checkpoints.opened();
  }

  /** Opening failed: stops without writing anything (the files stay as they were). */
  async abandon(): Promise<void> {
    this.closed = true;
    this.checkpoints.close();
    for (const timer of [this.timer, this.retryTimer]) if (timer) clearTimeout(timer);
    this.capture.stop();
    await this.journal.close();
  }

  /**
   * After each COMMIT: the transaction's pages become a pending commit (page numbers; their bytes are
   * copied only if a later write would change them first), journaled and fsynced within the debounce
   * window, or at once when much is pending.
   */
  committed(): void {
    this.journalFileState();
  }

  /**
   * After each ROLLBACK. SQLite puts back the pages a transaction spilled to the file, except a free
   * page it reused (its old bytes were garbage to SQLite, so it kept no copy): the file can differ from
   * the last commit after all. The pages that differ (or whose earlier bytes were not kept) are
   * journaled as they now are, as if committed (the data is the last commit's either way), so the
   * journal and the file never disagree, and a checkpoint's snapshot never starts with pages of a
   * transaction that did not commit. A rollback that put everything back journals nothing.
   */
  rolledBack(): void {
    if (this.closed) return;
    this.capture.settleRollback();
    this.journalFileState();
  }

  /** The pages written since the last of these calls become a pending commit. */
  private journalFileState(): void {
    if (this.closed) return;
    if (this.capture.unexpected && this.checkpoints.needWholeImage())
      this.options.log.error(`the journal cannot record ${this.capture.unexpected}; writing a whole image`);
    const pending = this.capture.commit(this.db.pageCount());
    if (!pending) return;
    this.pending.push(pending);
    this.pendingBytes += pending.pgnos.length * this.capture.pageSize;
    this.stats.commits += 1;
    this.scheduleSync();
    this.checkpoints.restartIdleTimer();
    if (this.journalBytes + this.pendingBytes >= this.checkpoints.checkpointBytes)
      this.checkpoints.schedule();
  }

  /** The group commit: one write and fsync for everything committed within the debounce window. */
  private scheduleSync(): void {
    // A large commit (a first sync) is written at once, a few MiB at a time, not held.
    if (this.pendingBytes >= EAGER_SYNC_BYTES) {
      void this.flush().catch(() => {});
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.sync().catch(() => {});
    }, this.options.debounceMs);
  }

  /** Runs `work` after the journal work queued before it: one writer of records at a time. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  /**
   * Turns pending commits into journal records, in order, each of at most RECORD_BYTES of pages (the
   * last one of a commit carries its commit mark); writes the journal whenever EAGER_SYNC_BYTES are
   * queued, so memory holds a few records whatever the size of a commit.
   */
  private async journalPending(): Promise<void> {
    const { pageSize } = this.capture;
    const perRecord = Math.max(1, Math.floor(RECORD_BYTES / recordBytesFor(1, pageSize)));
    while (this.pending.length > 0) {
      const commit = this.pending[0]!;
      while (commit.journaled < commit.pgnos.length) {
        const pgnos = commit.pgnos.slice(commit.journaled, commit.journaled + perRecord);
        const last = commit.journaled + pgnos.length === commit.pgnos.length;
        const { gen } = this.journal.header;
        const encoded = encodeRecord(
          gen,
          pgnos,
          pageSize,
          last ? commit.dbPages : 0,
          (pgno, into, at) => this.capture.readCommitted(commit, pgno, into, at),
          (pgno) => commit.bases.get(pgno),
        );
        for (const pgno of pgnos) commit.bases.delete(pgno);
        commit.journaled += pgnos.length;
        this.pendingBytes -= pgnos.length * pageSize;
        // The pages are read: compressing them on the thread pool lets commits go on meanwhile.
        const record = await recordForDisk(encoded, gen, commit.pgnos.length * pageSize > LARGE_COMMIT_BYTES);
        this.journal.append(record, last, encoded.changeBytes);
        this.stats.pages += pgnos.length;
        this.stats.journalBytes += record.length;
        if (this.journal.pending >= EAGER_SYNC_BYTES) await this.journal.sync();
        else if (!last) await nextTurn();
      }
      this.pending.shift();
    }
  }

  /** Resolves once every commit so far is fsynced. Rejects when the disk refuses (and retries later). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.sync();
  }

  private sync(): Promise<void> {
    return this.exclusive(async () => {
      try {
        await this.journalPending();
        await this.journal.sync();
        this.setProblem(null);
      } catch (error) {
        this.refused(error);
        throw error;
      }
    });
  }

  private refused(error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    const pendingBytes = this.journal.pending + this.pendingBytes;
    const message = `could not write to ${this.dataDir} (${reason}); ${pendingBytes.toLocaleString('en-US')} bytes of committed changes are kept in memory and will be written when the disk accepts them`;
    if (!this.currentProblem) this.options.log.error(message);
    this.setProblem({ message, since: this.currentProblem?.since ?? new Date(), pendingBytes });
    this.retryTimer ??= setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.closed) void this.sync().catch(() => {});
    }, RETRY_MS);
  }

  get problem(): PersistProblem | null {
    return this.currentProblem;
  }

  /** Hears every change of `problem` (null when the disk accepts writes again). */
  onProblem(listener: (problem: PersistProblem | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private setProblem(problem: PersistProblem | null): void {
    if (problem === null && this.currentProblem === null) return;
    if (problem === null) this.options.log.warn(`writing to ${this.dataDir} works again; nothing was lost`);
    this.currentProblem = problem;
    for (const listener of this.listeners) listener(problem);
  }

  /** Committed changes the image lacks: journaled (before compression) or still pending. */
  private get unsavedBytes(): number {
    return this.journalBytes + this.pendingBytes;
  }

  /**
   * Committed changes in journals that no image holds yet, in bytes of records before compression
   * (what replaying them costs; on disk they may take a third of that).
   */
  get journalBytes(): number {
    return this.checkpoints.journalBytes;
  }

  /** Folds the journals into a new image; resolves when it is in place (or rejects with why not). */
  checkpoint(): Promise<void> {
    return this.checkpoints.checkpoint();
  }

  /** How long the last checkpoint took, for the benchmark. */
  get lastCheckpointMs(): number {
    return this.checkpoints.lastCheckpointMs;
  }

  /**
   * Makes everything committed durable and stops: whatever the image lacks is folded into a new image
   * (one sequential write of the database: ~0.1 s at 10k datasets), so a clean stop leaves
   * `health.sqlite` whole and current and the next start replays nothing; anything committed after
   * that snapshot (nothing, once the engine stopped) is fsynced in the journal. Rejects when the disk
   * refuses; the commitWriter stays usable, so close can be retried.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.checkpoints.stopTimers();
    await this.checkpoints.beforeClose(() => this.unsavedBytes);
    // A journal with nothing to add is not created (a new one is only a header until its first sync).
    if (this.unsavedBytes > 0) await this.sync();
    this.closed = true;
    this.checkpoints.close();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.capture.stop();
    await this.journal.close();
  }
}
