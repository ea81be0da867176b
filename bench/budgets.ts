/** Performance budgets (docs/architecture.md#performance-budgets), stated at 10k datasets (a few also at 100k: see the functions below). */
export const BUDGET = {
  listP50Ms: 3,
  /** "No slower at 100k with page tokens": p50 at 100k over p50 at 10k, with 20% for noise. */
  listScaling: 1.2,
  datasetP50Ms: 1,
  tasksP50Ms: 1,
  /** Persist a small change: one journal append, from the commit until it is fsynced. */
  persistMs: 20,
  /** Full sync from the loopback simulator, event-loop stalls (checkpoints included), one fast poll cycle. */
  fullSyncMs: 6_000,
  stallMs: 50,
  pollMs: 300,
  /** Bytes written per steady-state poll cycle: at most this many times the changed records' JSON… */
  pollWriteFactor: 2,
  /** …plus this, whatever the database's size. */
  pollWriteSlackBytes: 64 * 1024,
  /** `dataset-health import` of a 10k snapshot, from starting the command to its exit. */
  importMs: 4_000,
  /** Over HTTP with 10 connections, ours against the native baseline. */
  throughputRatio: 0.67,
  p99Ratio: 1.5,
  /** The window (Chromium): first rows after opening the datasets view, and after a filter change. */
  rendererOpenMs: 1000,
  rendererFilterMs: 150,
  /** Triage / Upcoming / Reliability view: first content (the engine's part and the window's). */
  viewFirstContentMs: 500,
  /** The built CLI's start, as a multiple of a bare `node -e 0` in the same run: `--help`… */
  cliHelpRatio: 2,
  /** …and `keys list` on an empty data directory. */
  cliKeysListRatio: 4,
} as const;

const MIB = 1024 * 1024;

/** Budgets hold at 10k; smaller orgs must meet them too, larger ones only where docs/architecture.md#performance-budgets says so. */
export const judgedAt = (size: number): boolean => size <= 10_000;

/** A budget stated at 10k and, separately, at 100k; `judged` is false past 100k. */
export interface SizedBudget {
  limit: number;
  judged: boolean;
}

const sized = (size: number, at10k: number, at100k: number): SizedBudget =>
  size <= 10_000 ? { limit: at10k, judged: true } : { limit: at100k, judged: size <= 100_000 };

/** Cold start to the first answer: ≤ 1.0 s at 10k, ≤ 3 s at 100k. */
export const coldStartBudget = (size: number): SizedBudget => sized(size, 1_000, 3_000);

/** Headless process memory, peak RSS: ≤ 350 MB at 10k, ≤ 1.3 GB at 100k. */
export const rssBudget = (size: number): SizedBudget => sized(size, 350 * MIB, 1.3 * 1024 * MIB);
