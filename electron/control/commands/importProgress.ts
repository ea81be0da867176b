/**
 * Progress of a long import on stderr (docs/decisions.md "Import"): once it has run a couple of seconds,
 * and every couple of seconds after, one line of what is read so far — records, MB of the file, rate
 * and time left — then, once all is read, that the checks and the commit are under way. Whole lines,
 * never `\r`: stderr may be a file, a pipe or the control channel to a CLI (one line per message).
 * A short import prints nothing more than before.
 */
import { PROGRESS_EVERY_MS } from './importLimits';

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

const MB = 1_000_000;

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

/** One line of progress, `elapsedMs` into the import. */
export function progressLine(
  file: string,
  { bytes, records, total }: ImportReadSoFar,
  elapsedMs: number,
): string {
  const seconds = elapsedMs / 1000;
  const rate = bytes / MB / seconds;
  const read = `${count(records)} record${records === 1 ? '' : 's'}, ${mb(bytes)} of ${mb(total)} MB read`;
  if (bytes >= total)
    return `Importing ${file}: ${read} in ${Math.round(seconds)} s; checking the whole file and writing it`;
  const left = rate > 0 ? `, about ${duration((total - bytes) / MB / rate)} left to read` : '';
  return `Importing ${file}: ${read} (${rate.toFixed(1)} MB/s)${left}`;
}

const mb = (bytes: number): string => (bytes / MB).toFixed(1);

const count = (n: number): string => n.toLocaleString('en-US');

function duration(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
