/**
 * Progress of a long export or import on stderr (docs/architecture.md#snapshots): nothing for the first
 * FIRST_LINE_MS, so a short run prints what it always printed; then a line about every LINE_EVERY_MS:
 * what is done (of the whole, when known), how many MiB, the rate, and the time left.
 * `Exporting org acme: 41,200 of 315,565 records, 820.1 MiB, 27.3 MiB/s, about 2 min 10 s left`
 */

/** A run shorter than this prints no progress at all. */
export const FIRST_LINE_MS = 2000;
/** At most one line per this much time. */
export const LINE_EVERY_MS = 2000;

const MiB = 1024 * 1024;

/** How much of the work there is, for the time left: in its units, or in bytes (a file's size). */
export type ProgressTotal = { units: number } | { bytes: number };

export interface ProgressOptions {
  /** What runs, starting the line: `Exporting org acme`. */
  doing: string;
  /** The unit counted, one and many: `['record', 'records']`. */
  unit: readonly [string, string];
  /** Milliseconds on a clock that moves forward (injected: tests step it). */
  now(): number;
  /** Prints one line, its newline included (stderr, alone or through the instance). */
  print(line: string): void;
}

/** Call `update` as the work goes on (as often as is convenient): it prints when a line is due. */
export class ProgressLine {
  private readonly started: number;
  private due: number;

  constructor(private readonly options: ProgressOptions) {
    this.started = options.now();
    this.due = this.started + FIRST_LINE_MS;
  }

  /** `units` and `bytes` done so far; `total` when the whole is known. */
  update(units: number, bytes: number, total?: ProgressTotal): void {
    const at = this.options.now();
    if (at < this.due) return;
    this.due = at + LINE_EVERY_MS;
    this.options.print(`${progressText(this.options, units, bytes, total, (at - this.started) / 1000)}\n`);
  }
}

/** The line itself (without its newline), after `seconds` of work. */
export function progressText(
  options: Pick<ProgressOptions, 'doing' | 'unit'>,
  units: number,
  bytes: number,
  total: ProgressTotal | undefined,
  seconds: number,
): string {
  const [one, many] = options.unit;
  const count = units.toLocaleString('en-US');
  const done =
    total !== undefined && 'units' in total
      ? `${count} of ${total.units.toLocaleString('en-US')} ${total.units === 1 ? one : many}`
      : `${count} ${units === 1 ? one : many}`;
  const read =
    total !== undefined && 'bytes' in total
      ? `${(bytes / MiB).toFixed(1)} of ${(total.bytes / MiB).toFixed(1)} MiB`
      : `${(bytes / MiB).toFixed(1)} MiB`;
  const parts = [done, read];
  if (seconds > 0) parts.push(`${(bytes / MiB / seconds).toFixed(1)} MiB/s`);
  const left = secondsLeft(units, bytes, total, seconds);
  if (left !== null) parts.push(`about ${duration(left)} left`);
  return `${options.doing}: ${parts.join(', ')}`;
}

/** The time left at the rate so far; null when it cannot be told (no total, nothing done yet). */
function secondsLeft(
  units: number,
  bytes: number,
  total: ProgressTotal | undefined,
  seconds: number,
): number | null {
  if (total === undefined || seconds <= 0) return null;
  const [done, whole] = 'units' in total ? [units, total.units] : [bytes, total.bytes];
  if (done <= 0) return null;
  return Math.max(0, ((whole - done) * seconds) / done);
}

/** `8 s`, `2 min 10 s`, `1 h 5 min`. */
function duration(seconds: number): string {
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole} s`;
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${whole % 60} s`;
  return `${Math.floor(whole / 3600)} h ${Math.floor((whole % 3600) / 60)} min`;
}
