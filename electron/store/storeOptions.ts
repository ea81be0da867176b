/**
 * What a store is opened with (its data directory, how soon commits are fsynced, checkpoint
 * thresholds), and what it tells of how its database reaches disk (durability/).
 */
import type { OpeningOptions } from './durability/opening';
import type { PersistOptions, PersistProblem, PersistStats, CommitWriter } from './durability/writer';

export interface StoreLogger {
  warn(message: string): void;
  error(message: string): void;
}

export interface StoreOptions {
  /** Folder holding `health.sqlite` and its journal; null keeps the database in memory only (tests, benchmarks). */
  dataDir: string | null;
  /** How long after a commit the journal is fsynced; commits within the window share one write. */
  debounceMs?: number;
  log?: StoreLogger;
  /** Checkpoint thresholds (durability/checkpoint.ts); the defaults suit the app. */
  checkpoint?: Pick<
    PersistOptions,
    | 'checkpointBytes'
    | 'checkpointFloorBytes'
    | 'quitCheckpointBytes'
    | 'idleCheckpointMs'
    | 'openCheckpointDelayMs'
  >;
  /** How the database is opened (durability/opening.ts); the defaults suit the app, tests pass smaller sizes. */
  opening?: Pick<OpeningOptions, 'offThreadFrom' | 'replayCacheBytes'>;
  /** How journal files are opened; tests pass one that reaches `/dev/full` (a disk that is full). */
  openJournal?: PersistOptions['openJournal'];
}

export const DEFAULT_DEBOUNCE_MS = 250;

/** How the database reaches disk, for the engine's status and the benchmark. */
export interface StorePersistence {
  /** What the disk refused, or null while writes succeed. */
  readonly problem: PersistProblem | null;
  onProblem(listener: (problem: PersistProblem | null) => void): () => void;
  readonly stats: PersistStats;
  /** Changes replayed at open, in bytes of journal records before compression. */
  readonly replayedBytes: number;
  /** Changes in journals no image holds yet, likewise (the checkpoint threshold counts these). */
  readonly journalBytes: number;
  readonly lastCheckpointMs: number;
  /** Folds the journal into a new image now. */
  checkpoint(): Promise<void>;
}

/** The report on how the database reaches disk, read through to the journal writer. */
export function persistenceOf(commitWriter: CommitWriter, replayedBytes: number): StorePersistence {
  return {
    get problem() {
      return commitWriter.problem;
    },
    onProblem: (listener) => commitWriter.onProblem(listener),
    stats: commitWriter.stats,
    replayedBytes,
    get journalBytes() {
      return commitWriter.journalBytes;
    },
    get lastCheckpointMs() {
      return commitWriter.lastCheckpointMs;
    },
    checkpoint: () => commitWriter.checkpoint(),
  };
}
