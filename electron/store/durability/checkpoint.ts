/**
 * Checkpoints (docs/storage.md): when the journals are folded into a new image, and the folding. One
 * starts when the journal has grown past a threshold, after a quiet spell, once the store is open when
 * opening called for one, and at a clean close whenever the image lacks a commit (so a stopped app leaves
 * a `health.sqlite` any SQLite tool reads whole). It runs beside the app while new commits go to the
 * next journal; the image itself is written by newImage.ts. The journal writer (writer.ts) owns the
 * journal and hands this part what it needs through `CheckpointHost`.
 */
import { randomInt } from 'node:crypto';
import { closeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DATABASE_FILE, listDir } from './files';
import { JournalWriter, type OpenJournalFile, isJournalFileName } from './journal';
import { writeImage, writeSnapshot } from './newImage';
import type { PageCapture } from './pageCapture';
import { PageFile } from './pageFile';

/** When a checkpoint starts; every one has a default that suits the app. */
export interface CheckpointOptions {
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

/** What a checkpoint needs of the journal writer. */
export interface CheckpointHost {
  readonly dataDir: string;
  readonly capture: PageCapture;
  readonly db: PersistedDatabase;
  readonly stats: PersistStats;
  readonly openJournal: OpenJournalFile | undefined;
  /** The journal commits go to now. */
  journal(): JournalWriter;
  /** Commits go to `next` from now on (a checkpoint switched journals). */
  useJournal(next: JournalWriter): void;
  /** Commits not journaled yet. */
  pendingCommits(): number;
  /** Runs `work` after the journal work queued before it: one writer of records at a time. */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** Turns pending commits into journal records. */
  journalPending(): Promise<void>;
  /** The pages written since the last commit or rollback become a pending commit. */
  journalFileState(): void;
  /** An export of the database holds every commit: nothing pending needs journaling any more. */
  dropPending(): void;
  /** A write the disk refused: reported and retried. */
  refused(error: unknown): void;
  warn(message: string): void;
}

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

/** The journal size past which a checkpoint starts, for an image of `imageBytes` (see `checkpointBytes`). */
export function checkpointThreshold(imageBytes: number, floor = MIN_CHECKPOINT_BYTES): number {
  return Math.max(floor, Math.min(imageBytes / 5, MAX_CHECKPOINT_BYTES));
}

/** A new journal or image generation. */
export const newGen = (): number => randomInt(1, 2 ** 32 - 1);

export class Checkpoints {
  private run: Promise<void> | undefined;
  private queued = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private openTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The journal missed a write: the next checkpoint writes an export of the database instead. */
  private wholeImage = false;
  /** How long the last checkpoint took, for the benchmark. */
  lastCheckpointMs = 0;

  constructor(
    private readonly host: CheckpointHost,
    private readonly options: CheckpointOptions,
    /** Closed journals whose records are in no image yet, oldest first. */
    private unfolded: JournalWriter[],
    /** The image's size as of the last checkpoint (or at open): the threshold follows it. */
    private imageBytes: number,
    /** `health.sqlite` is missing or not an image of this database's chain. */
    private imageOutdated: boolean,
    /** Opening called for a checkpoint once the store is open (see `opened`). */
    private whenOpen: boolean,
  ) {}

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

  /**
   * Committed changes in journals that no image holds yet, in bytes of records before compression
   * (what replaying them costs; on disk they may take a third of that).
   */
  get journalBytes(): number {
    const folded = this.unfolded.reduce((sum, writer) => sum + writer.committedChangeBytes, 0);
    return folded + this.host.journal().committedChangeBytes;
  }

  /** Opening found the journal past its threshold (a kill before the checkpoint): one once open. */
  callForOneWhenOpen(): void {
    if (this.journalBytes >= this.checkpointBytes) this.whenOpen = true;
  }

  /** The store is open (migrated): a checkpoint that opening called for starts now. */
  opened(): void {
    if (!this.whenOpen) return;
    // Not at once: writing a whole image beside a start slowed the first answer by seconds at 100k
    // datasets (and a one-shot command that exits sooner leaves it to the next long-running start).
    const delay = this.options.openCheckpointDelayMs ?? DEFAULT_OPEN_CHECKPOINT_DELAY_MS;
    this.openTimer = setTimeout(() => {
      this.openTimer = undefined;
      this.schedule();
    }, delay);
    this.openTimer.unref();
  }

  /** The journal cannot record what SQLite wrote: the next checkpoint writes a whole image. */
  needWholeImage(): boolean {
    if (this.wholeImage) return false;
    this.wholeImage = true;
    this.schedule();
    return true;
  }

  /** After a commit: a quiet spell from now folds the journal in. */
  restartIdleTimer(): void {
    const idleMs = this.options.idleCheckpointMs ?? DEFAULT_IDLE_CHECKPOINT_MS;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.journalBytes >= IDLE_CHECKPOINT_BYTES) this.schedule();
    }, idleMs);
    this.idleTimer.unref();
  }

  stopTimers(): void {
    for (const timer of [this.idleTimer, this.openTimer]) if (timer) clearTimeout(timer);
    this.idleTimer = undefined;
    this.openTimer = undefined;
  }

  schedule(): void {
    if (this.run || this.closed || this.queued) return;
    // On a later turn: this may be called inside a commit, where the database cannot be used yet.
    this.queued = true;
    setImmediate(() => {
      this.queued = false;
      if (!this.run && !this.closed) void this.checkpoint().catch(() => {});
    });
  }

  /** Folds the journals into a new image; resolves when it is in place (or rejects with why not). */
  checkpoint(): Promise<void> {
    return this.start(true);
  }

  /**
   * At close: whatever the image lacks (`unsavedBytes` of committed changes, or itself) is folded into
   * a new image once the journal reached the quit threshold. No checkpoint starts after this.
   */
  async beforeClose(unsavedBytes: () => number): Promise<void> {
    if (this.run) await this.run.catch(() => {});
    if (this.wholeImage) await this.checkpoint();
    else if (this.imageBehindAtClose(unsavedBytes())) {
      // A disk with room for the journal but not for a new image: the journal keeps every commit, as
      // after a kill, and the next start replays it. Only a journal that cannot be written fails close.
      await this.start(false).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        this.host.warn(`could not write the image at close (${reason}); every change is kept in the journal`);
      });
    }
  }

  /** No checkpoint starts any more (the writer stopped). */
  close(): void {
    this.closed = true;
    this.stopTimers();
  }

  /** At close: the image lacks something (a commit, or itself) and the journal reached the quit threshold. */
  private imageBehindAtClose(unsavedBytes: number): boolean {
    const quitBytes = this.options.quitCheckpointBytes ?? 0;
    return (unsavedBytes > 0 || this.imageOutdated) && unsavedBytes >= quitBytes;
  }

  /** `reportRefusal`: a refused write is reported (`problem`) and retried, as a journal's is. */
  private start(reportRefusal: boolean): Promise<void> {
    this.run ??= this.fold(reportRefusal).finally(() => {
      this.run = undefined;
    });
    return this.run;
  }

  private async fold(reportRefusal: boolean): Promise<void> {
    if (this.wholeImage) return this.writeWholeImage();
    const host = this.host;
    const gen = newGen();
    try {
      // The snapshot's moment, between two transactions: every commit before it is in the old journal,
      // every commit after it goes to the next one.
      let pages: number | undefined;
      let mark = 0;
      while (pages === undefined) {
        // Wait for a sync in progress outside the journal's queue: flushes go on meanwhile.
        await host.db.whenIdle(() => {});
        pages = await host.exclusive(async () => {
          await host.journalPending();
          // A transaction began, or a commit came in, while journaling: try again (a large commit is
          // journaled in slices, not here).
          if (host.db.busy || host.pendingCommits() > 0) return undefined;
          if (host.capture.uncommittedPages > 0) {
            // Never here (every ROLLBACK journals what it left): such pages would be in the image.
            host.journalFileState();
            return undefined;
          }
          const old = host.journal();
          host.useJournal(
            JournalWriter.next(
              host.dataDir,
              {
                gen,
                base: { kind: 'journal', gen: old.header.gen, length: old.committedLength },
                pageSize: old.header.pageSize,
              },
              old,
              host.openJournal,
            ),
          );
          this.unfolded.push(old);
          const pageCount = host.db.pageCount();
          host.capture.beginSnapshot(pageCount);
          mark = host.capture.file.markSnapshot();
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
        imageBytes = await writeSnapshot(host.dataDir, gen, {
          pages,
          pageSize: host.capture.pageSize,
          readPages: (from, count, into) => host.capture.readSnapshot(from, count, into),
        });
      } finally {
        host.capture.endSnapshot();
      }
      this.readFromImage(imageBytes, mark);
      host.stats.checkpoints += 1;
      host.stats.checkpointBytes += imageBytes;
      this.imageBytes = imageBytes;
      this.lastCheckpointMs = performance.now() - started;
      this.imageOutdated = false;
      this.unfolded = [];
      await this.removeJournalsExcept([...folded.map((writer) => writer.file), host.journal().file]);
    } catch (error) {
      if (reportRefusal) host.refused(error);
      throw error;
    }
  }

  /** The fallback when the journal missed a write: an export of the database, and a journal on it. */
  private async writeWholeImage(): Promise<void> {
    const host = this.host;
    const gen = newGen();
    // Under the journal's queue: a journaling in progress must not append to the new journal.
    const { bytes, mark } = await host.exclusive(() =>
      host.db.whenIdle(() => {
        // The export holds every commit: nothing pending needs journaling any more.
        host.capture.reset(host.db.pageCount());
        host.dropPending();
        const old = host.journal();
        host.useJournal(
          JournalWriter.next(
            host.dataDir,
            { gen, base: { kind: 'image', gen }, pageSize: old.header.pageSize },
            undefined,
            host.openJournal,
          ),
        );
        this.unfolded.push(old);
        return { bytes: host.db.exportImage(), mark: host.capture.file.markSnapshot() };
      }),
    );
    try {
      await writeImage(host.dataDir, bytes, gen);
      this.readFromImage(bytes.length, mark);
      this.wholeImage = false;
      this.imageOutdated = false;
      host.stats.checkpoints += 1;
      host.stats.checkpointBytes += bytes.length;
      this.imageBytes = bytes.length;
      const folded = this.unfolded;
      this.unfolded = [];
      await Promise.all(folded.map((writer) => writer.close()));
      await this.removeJournalsExcept([host.journal().file]);
    } catch (error) {
      host.refused(error);
      throw error;
    }
  }

  /**
   * The image just written (as of `mark`) becomes what the database file reads unchanged pages from,
   * so the pages written before it need no place of their own any more (pageFile.ts). Should it not
   * open as expected, the file keeps reading the image before it, which is as complete.
   */
  private readFromImage(imageBytes: number, mark: number): void {
    let image;
    try {
      image = PageFile.openBase(join(this.host.dataDir, DATABASE_FILE));
    } catch (error) {
      this.host.warn(
        `could not open the new image to read from (${String(error)}); the previous one is used`,
      );
      return;
    }
    if (image.size !== imageBytes) {
      closeSync(image.fd);
      this.host.warn('the new image is not the size written; the previous one is used');
      return;
    }
    this.host.capture.file.rebase(image, mark);
  }

  /** Removes journals no image needs: those of the backup (just folded) and the current one stay. */
  private async removeJournalsExcept(keep: string[]): Promise<void> {
    for (const name of await listDir(this.host.dataDir)) {
      const file = join(this.host.dataDir, name);
      if (isJournalFileName(name) && !keep.includes(file)) await rm(file, { force: true });
    }
  }
}
