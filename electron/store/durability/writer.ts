/**
 * When the database reaches disk (docs/storage.md). Each commit's pages become one journal record,
 * queued at once and written and fsynced with the others of its debounce window (a group commit). A
 * checkpoint folds the journals into a new image when the journal has grown past a threshold, after a
 * quiet spell, and at a clean close whenever the image lacks a commit (so a stopped app leaves a
 * `health.sqlite` any SQLite tool reads whole); it runs beside the app (checkpoint.ts) while new
 * commits go to the next journal. A disk that refuses a write (full, gone) is reported through
 * `problem` and retried; what was committed stays queued in memory meanwhile.
 */
import { randomInt } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeImage, writeSnapshot } from './checkpoint';
import { listDir } from './files';
import { JournalWriter, type OpenJournalFile, isJournalFileName } from './journal';
import { JOURNAL_VERSION, encodeRecord, recordBytesFor, recordForDisk } from './journalFile';
import type { PageCapture, PendingCommit } from './pageCapture';
import type { LoadedDatabase } from './opening';

export interface PersistLogger {
  warn(message: string): void;
  error(message: string): void;
}

export interface PersistOptions {
  /** How long after a commit the journal is fsynced; commits within the window share one write. */
  debounceMs: number;
  /** A checkpoint starts once the journal's committed records pass this many bytes. */
  checkpointBytes?: number;
  /** Without `checkpointBytes`: the threshold is a fifth of the image's size, and at least this (16 MiB). */
  checkpointFloorBytes?: number;
  /**
   * At close, a journal holding at least this many bytes is folded into the image first. Default 0:
   * any commit the image lacks, so a clean stop leaves `health.sqlite` current (docs/storage.md);
   * tests and the benchmark raise it to leave a journal behind.
   */
  quitCheckpointBytes?: number;
  /** After this long without a commit, a journal past IDLE_CHECKPOINT_BYTES is folded in. */
  idleCheckpointMs?: number;
  /** A checkpoint opening called for starts this long after the store is open (default 5 s). */
  openCheckpointDelayMs?: number;
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
const MIN_CHECKPOINT_BYTES = 16 * 1024 * 1024;
/**
 * Nor above this. Replaying small changes is bound by memory latency (each run of changed bytes lands
 * on a page somewhere in the image, about 0.4 µs a run at 100k datasets, whose image is near 1 GB):
 * 128 MiB of them replay in about half a second, which keeps a start after a kill on a large org
 * within its 3 s budget.
 */
const MAX_CHECKPOINT_BYTES = 128 * 1024 * 1024;
/**
 * A quiet spell folds in a journal past this: a small one replays in milliseconds, and rewriting a
 * 10k org's 90 MB image for one acknowledgement every few minutes would cost more than it saves.
 */
const IDLE_CHECKPOINT_BYTES = 4 * 1024 * 1024;
export const DEFAULT_IDLE_CHECKPOINT_MS = 5 * 60_000;
const DEFAULT_OPEN_CHECKPOINT_DELAY_MS = 5_000;
/** How soon a write the disk refused is tried again. */
const RETRY_MS = 5_000;

/** What the disk refused, since when, and what waits in memory meanwhile. */
export interface PersistProblem {
  message: string;
  since: Date;
  pendingBytes: number;
}

/** What the database needs from its store: its page count, a quiet moment, and a whole copy. */
export interface PersistedDatabase {
  pageCount(): number;
  whenIdle<T>(fn: () => T): Promise<T>;
  /** A chunked transaction is open (checked and acted on in one synchronous step). */
  readonly busy: boolean;
  /** The whole database as a file's bytes (only when the journal missed a write). */
  exportImage(): Uint8Array;
}

export interface PersistStats {
  /** Journal records committed, and the bytes of journal and images written. */
  commits: number;
  /** Pages journaled (a page a transaction rewrote many times counts once). */
  pages: number;
  journalBytes: number;
  checkpoints: number;
  checkpointBytes: number;
}

/** The journal size past which a checkpoint starts, for an image of `imageBytes` (see `checkpointBytes`). */
export function checkpointThreshold(imageBytes: number, floor = MIN_CHECKPOINT_BYTES): number {
  return Math.max(floor, Math.min(imageBytes / 5, MAX_CHECKPOINT_BYTES));
}

const newGen = (): number => randomInt(1, 2 ** 32 - 1);

/** Lets timers and I/O run between two records of a large commit. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class Persister {
  private journal: JournalWriter;
  /** Closed journals whose records are in no image yet, oldest first. */
  private unfolded: JournalWriter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private checkpointRun: Promise<void> | undefined;
  private closed = false;
  /** Commits not journaled yet, oldest first, and their pages' bytes. */
  private pending: PendingCommit[] = [];
  private pendingBytes = 0;
  /** The journal work in progress (journaling, syncing, switching journals): one at a time. */
  private queue: Promise<void> = Promise.resolve();
  /** The journal missed a write: the next checkpoint writes an export of the database instead. */
  private wholeImage = false;
  private currentProblem: PersistProblem | null = null;
  private readonly listeners = new Set<(problem: PersistProblem | null) => void>();
  readonly stats: PersistStats = {
    commits: 0,
    pages: 0,
    journalBytes: 0,
    checkpoints: 0,
    checkpointBytes: 0,
  };
  /** The image's size as of the last checkpoint (or at open): the threshold follows it. */
  private imageBytes: number;

  private constructor(
    private readonly dataDir: string,
    private readonly capture: PageCapture,
    private readonly db: PersistedDatabase,
    private readonly options: PersistOptions,
    journal: JournalWriter,
    unfolded: JournalWriter[],
    imageBytes: number,
  ) {
    this.journal = journal;
    this.unfolded = unfolded;
    this.imageBytes = imageBytes;
  }

  /** Continues from what was loaded: appends to the last journal replayed, or starts one on the image. */
  static async start(
    dataDir: string,
    loaded: Pick<LoadedDatabase<unknown>, 'chain' | 'imageFile' | 'imageGen' | 'source'>,
    imageBytes: number,
    capture: PageCapture,
    db: PersistedDatabase,
    options: PersistOptions,
  ): Promise<Persister> {
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
    const persister = new Persister(dataDir, capture, db, options, journal, unfolded, imageBytes);
    // No current image to build on (none yet, the main one unusable, or one from before journals):
    // the next clean close writes one even if nothing is committed meanwhile.
    persister.imageOutdated = loaded.source !== 'main' || loaded.imageGen === 0;
    // Opened from the backup, or an image from before journals, or a journal past its threshold (a
    // kill before the checkpoint): write a proper image once open.
    persister.checkpointWhenOpen =
      loaded.source === 'backup' ||
      (loaded.imageFile !== null && loaded.imageGen === 0) ||
      persister.journalBytes >= persister.checkpointBytes;
    return persister;
  }

  private checkpointWhenOpen = false;
  /** `health.sqlite` is missing or not an image of this database's chain (see `start`). */
  private imageOutdated = false;

  /**
   * A checkpoint starts once the journal passes this: a fifth of the image's size as of the last
   * checkpoint, kept between 16 and 128 MiB. Replaying a journal of small changes costs 5–8 ms a MiB
   * (inflating, then a copy per run of changed bytes, each on a page somewhere in the image), so a
   * start after a kill replays for ~0.15 s at 10k datasets (85 MB image; a 1 s budget of which the
   * start itself takes 0.75 s) and ~0.7 s at 100k (3 s budget); and a database that grew since it
   * opened is not rewritten every 16 MiB of journal.
   */
  get checkpointBytes(): number {
    return (
      this.options.checkpointBytes ?? checkpointThreshold(this.imageBytes, this.options.checkpointFloorBytes)
    );
  }

  /** The store is open (migrated): a checkpoint that opening called for starts now. */
  opened(): void {
    if (!this.checkpointWhenOpen) return;
    // Not at once: writing a whole image beside a start slowed the first answer by seconds at 100k
    // datasets (and a one-shot command that exits sooner leaves it to the next long-running start).
    const delay = this.options.openCheckpointDelayMs ?? DEFAULT_OPEN_CHECKPOINT_DELAY_MS;
    this.openTimer = setTimeout(() => {
      this.openTimer = undefined;
      this.scheduleCheckpoint();
    }, delay);
    this.openTimer.unref();
  }

  private openTimer: NodeJS.Timeout | undefined;

  /** Opening failed: stops without writing anything (the files stay as they were). */
  async abandon(): Promise<void> {
    this.closed = true;
    for (const timer of [this.timer, this.idleTimer, this.retryTimer, this.openTimer])
      if (timer) clearTimeout(timer);
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
    if (this.capture.unexpected && !this.wholeImage) {
      this.options.log.error(`the journal cannot record ${this.capture.unexpected}; writing a whole image`);
      this.wholeImage = true;
      this.scheduleCheckpoint();
    }
    const pending = this.capture.commit(this.db.pageCount());
    if (!pending) return;
    this.pending.push(pending);
    this.pendingBytes += pending.pgnos.length * this.capture.pageSize;
    this.stats.commits += 1;
    this.scheduleSync();
    this.restartIdleTimer();
    if (this.journalBytes + this.pendingBytes >= this.checkpointBytes) this.scheduleCheckpoint();
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

  private restartIdleTimer(): void {
    const idleMs = this.options.idleCheckpointMs ?? DEFAULT_IDLE_CHECKPOINT_MS;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.journalBytes >= IDLE_CHECKPOINT_BYTES) this.scheduleCheckpoint();
    }, idleMs);
    this.idleTimer.unref();
  }

  /** Committed changes the image lacks: journaled (before compression) or still pending. */
  private get unsavedBytes(): number {
    return this.journalBytes + this.pendingBytes;
  }

  /** At close: the image lacks something (a commit, or itself) and the journal reached the quit threshold. */
  private get imageBehindAtClose(): boolean {
    const quitBytes = this.options.quitCheckpointBytes ?? 0;
    return (this.unsavedBytes > 0 || this.imageOutdated) && this.unsavedBytes >= quitBytes;
  }

  /**
   * Committed changes in journals that no image holds yet, in bytes of records before compression
   * (what replaying them costs; on disk they may take a third of that).
   */
  get journalBytes(): number {
    const folded = this.unfolded.reduce((sum, writer) => sum + writer.committedChangeBytes, 0);
    return folded + this.journal.committedChangeBytes;
  }

  private scheduleCheckpoint(): void {
    if (this.checkpointRun || this.closed || this.checkpointQueued) return;
    // On a later turn: this may be called inside a commit, where the database cannot be used yet.
    this.checkpointQueued = true;
    setImmediate(() => {
      this.checkpointQueued = false;
      if (!this.checkpointRun && !this.closed) void this.checkpoint().catch(() => {});
    });
  }

  private checkpointQueued = false;

  /** Folds the journals into a new image; resolves when it is in place (or rejects with why not). */
  checkpoint(): Promise<void> {
    return this.startCheckpoint(true);
  }

  /** `reportRefusal`: a refused write is reported (`problem`) and retried, as a journal's is. */
  private startCheckpoint(reportRefusal: boolean): Promise<void> {
    this.checkpointRun ??= this.runCheckpoint(reportRefusal).finally(() => {
      this.checkpointRun = undefined;
    });
    return this.checkpointRun;
  }

  private async runCheckpoint(reportRefusal: boolean): Promise<void> {
    if (this.wholeImage) return this.writeWholeImage();
    const gen = newGen();
    try {
      // The snapshot's moment, between two transactions: every commit before it is in the old journal,
      // every commit after it goes to the next one.
      let pages: number | undefined;
      while (pages === undefined) {
        // Wait for a sync in progress outside the journal's queue: flushes go on meanwhile.
        await this.db.whenIdle(() => {});
        pages = await this.exclusive(async () => {
          await this.journalPending();
          // A transaction began, or a commit came in, while journaling: try again (a large commit is
          // journaled in slices, not here).
          if (this.db.busy || this.pending.length > 0) return undefined;
          if (this.capture.uncommittedPages > 0) {
            // Never here (every ROLLBACK journals what it left): such pages would be in the image.
            this.journalFileState();
            return undefined;
          }
          const old = this.journal;
          this.journal = JournalWriter.next(
            this.dataDir,
            {
              gen,
              base: { kind: 'journal', gen: old.header.gen, length: old.committedLength },
              pageSize: old.header.pageSize,
            },
            old,
            this.options.openJournal,
          );
          this.unfolded.push(old);
          const pageCount = this.db.pageCount();
          this.capture.beginSnapshot(pageCount);
          return pageCount;
        });
      }
      const started = performance.now();
      const folded = [...this.unfolded];
      let imageBytes: number;
      try {
        for (const writer of folded) {
          await writer.sync();
          await writer.close();
        }
        imageBytes = await writeSnapshot(this.dataDir, gen, {
          pages,
          pageSize: this.capture.pageSize,
          readPages: (from, count, into) => this.capture.readSnapshot(from, count, into),
        });
      } finally {
        this.capture.endSnapshot();
      }
      this.stats.checkpoints += 1;
      this.stats.checkpointBytes += imageBytes;
      this.imageBytes = imageBytes;
      this.lastCheckpointMs = performance.now() - started;
      this.imageOutdated = false;
      this.unfolded = [];
      await this.removeJournalsExcept([...folded.map((writer) => writer.file), this.journal.file]);
    } catch (error) {
      if (reportRefusal) this.refused(error);
      throw error;
    }
  }

  /** The fallback when the journal missed a write: an export of the database, and a journal on it. */
  private async writeWholeImage(): Promise<void> {
    const gen = newGen();
    // Under the journal's queue: a journaling in progress must not append to the new journal.
    const bytes = await this.exclusive(() =>
      this.db.whenIdle(() => {
        // The export holds every commit: nothing pending needs journaling any more.
        this.capture.reset(this.db.pageCount());
        this.pending = [];
        this.pendingBytes = 0;
        const old = this.journal;
        this.journal = JournalWriter.next(
          this.dataDir,
          { gen, base: { kind: 'image', gen }, pageSize: old.header.pageSize },
          undefined,
          this.options.openJournal,
        );
        this.unfolded.push(old);
        return this.db.exportImage();
      }),
    );
    try {
      await writeImage(this.dataDir, bytes, gen);
      this.wholeImage = false;
      this.imageOutdated = false;
      this.stats.checkpoints += 1;
      this.stats.checkpointBytes += bytes.length;
      this.imageBytes = bytes.length;
      const folded = this.unfolded;
      this.unfolded = [];
      await Promise.all(folded.map((writer) => writer.close()));
      await this.removeJournalsExcept([this.journal.file]);
    } catch (error) {
      this.refused(error);
      throw error;
    }
  }

  /** How long the last checkpoint took, for the benchmark. */
  lastCheckpointMs = 0;

  /** Removes journals no image needs: those of the backup (just folded) and the current one stay. */
  private async removeJournalsExcept(keep: string[]): Promise<void> {
    for (const name of await listDir(this.dataDir)) {
      const file = join(this.dataDir, name);
      if (isJournalFileName(name) && !keep.includes(file)) await rm(file, { force: true });
    }
  }

  /**
   * Makes everything committed durable and stops: whatever the image lacks is folded into a new image
   * (one sequential write of the database: ~0.1 s at 10k datasets), so a clean stop leaves
   * `health.sqlite` whole and current and the next start replays nothing; anything committed after
   * that snapshot (nothing, once the engine stopped) is fsynced in the journal. Rejects when the disk
   * refuses; the persister stays usable, so close can be retried.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    for (const timer of [this.timer, this.idleTimer, this.openTimer]) if (timer) clearTimeout(timer);
    this.timer = undefined;
    this.idleTimer = undefined;
    this.openTimer = undefined;
    if (this.checkpointRun) await this.checkpointRun.catch(() => {});
    if (this.wholeImage) await this.checkpoint();
    else if (this.imageBehindAtClose) {
      // A disk with room for the journal but not for a new image: the journal keeps every commit, as
      // after a kill, and the next start replays it. Only a journal that cannot be written fails close.
      await this.startCheckpoint(false).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        this.options.log.warn(
          `could not write the image at close (${reason}); every change is kept in the journal`,
        );
      });
    }
    // A journal with nothing to add is not created (a new one is only a header until its first sync).
    if (this.unsavedBytes > 0) await this.sync();
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.capture.stop();
    await this.journal.close();
  }
}
