/**
 * Progress of a long import on stderr (docs/decisions.md "Import"): once it has run a couple of seconds,
 * and every couple of seconds after, one line of what is read so far — records, MiB of the file, rate
 * and time left, worded as an export's (progress.ts) — then, once all is read, that the checks and the
 * commit are under way. A timer wakes it, so a read that waits still gets its line. Whole lines,
 * never `\r`: stderr may be a file, a pipe or the control channel to a CLI (one line per message).
 * A short import prints nothing more than before.
 */
import { PROGRESS_EVERY_MS } from './importLimits';
import { progressText } from './progress';

export interface ProgressClock {
  /** Milliseconds: the command's clock (tests pin it or move it by hand). */
  now(): number;
  /** Calls `fn` every `ms`; returns its cancel. */
  every(ms: number, fn: () => void): () => void;
}

export interface ImportReadSoFar {
  bytes: number;
  records: number;
  /** The file's size when it was opened. */
  total: number;
}

/**
 * Starts reporting the progress of `file`'s import to `print`; the returned function stops it. The
 * clock's timer only wakes it: whether a line is due is the clock's `now` (so a pinned clock prints none).
 */
export function reportImportProgress(
  file: string,
  soFar: () => ImportReadSoFar,
  print: (line: string) => void,
  clock: ProgressClock,
): () => void {
  const start = clock.now();
  let last = start;
  // Woken four times per line: a line comes within a quarter of the period of being due.
  return clock.every(PROGRESS_EVERY_MS / 4, () => {
    const now = clock.now();
    if (now - last < PROGRESS_EVERY_MS) return;
    last = now;
    print(`${progressLine(file, soFar(), now - start)}\n`);
  });
}

/** One line of progress, `elapsedMs` into the import (the same line as an export's: progress.ts). */
export function progressLine(
  file: string,
  { bytes, records, total }: ImportReadSoFar,
  elapsedMs: number,
): string {
  const shape = { doing: `Importing ${file}`, unit: ['record', 'records'] as const };
  if (bytes >= total)
    return `${progressText(shape, records, bytes, undefined, 0)} read in ${Math.round(elapsedMs / 1000)} s; checking the whole file and writing it`;
  return progressText(shape, records, bytes, { bytes: total }, elapsedMs / 1000);
}
