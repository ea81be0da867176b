/**
 * Deliveries in columns, 9 bytes each (docs/decisions.md "The history in columns"): the deadline as whole
 * seconds from 2000 in an Int32 (1932–2068), the delivered time as milliseconds after the deadline in an
 * Int32 (±24 days), the status code in a byte. What does not fit — an unknown time is a sentinel; a
 * deadline with milliseconds, a time out of range, a delivery more than 24 days from its deadline, or
 * one whose deadline is unknown — is kept exactly in a map beside them, so every value reads back as it
 * was read (a 100k org that keeps 100 deliveries each holds 90 MB so, against 170 MB as Float64 times).
 */

/** A growing typed array (no boxed array for a block's deliveries). */
export class Grow<T extends Float64Array | Int32Array | Uint8Array> {
  length = 0;
  constructor(
    private buffer: T,
    private readonly make: (size: number) => T,
  ) {}

  ensure(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const grown = this.make(Math.max(this.length + extra, this.buffer.length * 2, 64));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }

  push(value: number): void {
    this.ensure(1);
    this.buffer[this.length++] = value;
  }

  copy(from: T, start: number, end: number): void {
    this.ensure(end - start);
    this.buffer.set(from.subarray(start, end), this.length);
    this.length += end - start;
  }

  /** The values so far (the array may be longer: read below `length` only). */
  get values(): T {
    return this.buffer;
  }

  /** The values, in an array of their exact length. */
  done(): T {
    return this.buffer.slice(0, this.length) as T;
  }
}

export const growingFloats = () => new Grow<Float64Array>(new Float64Array(0), (n) => new Float64Array(n));
const growingInts = () => new Grow<Int32Array>(new Int32Array(0), (n) => new Int32Array(n));
const growingBytes = () => new Grow<Uint8Array>(new Uint8Array(0), (n) => new Uint8Array(n));

/** Deadlines are held as whole seconds from here. */
const EPOCH = Date.UTC(2000, 0, 1);
/** Int32 sentinels: an unknown time; a value kept in `exact`. Every held value is above both. */
const UNKNOWN = -0x80000000;
const ELSEWHERE = -0x7fffffff;
const LARGEST = 0x7fffffff;

const fits = (value: number): boolean => Number.isInteger(value) && value > ELSEWHERE && value <= LARGEST;

/** A run of deliveries read one at a time: a block's columns, or one dataset's typed arrays. */
export interface DeliveryReader {
  readonly statuses: Uint8Array;
  deadline(i: number): number;
  delivered(i: number): number;
}

/** One dataset's deliveries as Float64 arrays (tests and the one-dataset answers) read as a DeliveryReader. */
export function arraysReader(arrays: {
  deadlines: Float64Array;
  delivered: Float64Array;
  statuses: Uint8Array;
}): DeliveryReader {
  return {
    statuses: arrays.statuses,
    deadline: (i) => arrays.deadlines[i]!,
    delivered: (i) => arrays.delivered[i]!,
  };
}

/** The deliveries of a block's datasets end to end: dataset k's are [starts[k], starts[k + 1]), newest first. */
export class DeliveryColumns implements DeliveryReader {
  constructor(
    readonly starts: Uint32Array,
    readonly seconds: Int32Array,
    /** Delivered − deadline, ms. */
    readonly delays: Int32Array,
    readonly statuses: Uint8Array,
    /** What does not fit: 2i for delivery i's deadline, 2i + 1 for its delivered time. */
    readonly exact: ReadonlyMap<number, number>,
  ) {}

  deadline(i: number): number {
    const seconds = this.seconds[i]!;
    if (seconds > ELSEWHERE) return EPOCH + seconds * 1000;
    return seconds === UNKNOWN ? NaN : this.exact.get(2 * i)!;
  }

  delivered(i: number): number {
    const delay = this.delays[i]!;
    // A delay is held only beside a deadline held in seconds.
    if (delay > ELSEWHERE) return EPOCH + this.seconds[i]! * 1000 + delay;
    return delay === UNKNOWN ? NaN : this.exact.get(2 * i + 1)!;
  }
}

/** Builds DeliveryColumns a dataset at a time. */
export class DeliveryWriter {
  private readonly starts: number[] = [0];
  private readonly seconds = growingInts();
  private readonly delays = growingInts();
  private readonly statuses = growingBytes();
  private readonly exact = new Map<number, number>();

  /** One delivery of the dataset being added (call `end` after its last). */
  add(deadline: number, delivered: number, code: number): void {
    const i = this.seconds.length;
    const seconds = (deadline - EPOCH) / 1000;
    let held = true;
    if (Number.isNaN(deadline)) {
      this.seconds.push(UNKNOWN);
      held = false;
    } else if (fits(seconds)) this.seconds.push(seconds);
    else {
      this.seconds.push(ELSEWHERE);
      this.exact.set(2 * i, deadline);
      held = false;
    }
    if (Number.isNaN(delivered)) this.delays.push(UNKNOWN);
    else if (held && fits(delivered - deadline)) this.delays.push(delivered - deadline);
    else {
      this.delays.push(ELSEWHERE);
      this.exact.set(2 * i + 1, delivered);
    }
    this.statuses.push(code);
  }

  /** Deliveries [start, end) of `from`, as they are. */
  copy(from: DeliveryColumns, start: number, end: number): void {
    const at = this.seconds.length;
    this.seconds.copy(from.seconds, start, end);
    this.delays.copy(from.delays, start, end);
    this.statuses.copy(from.statuses, start, end);
    if (from.exact.size === 0) return;
    for (let i = start; i < end; i += 1) {
      if (from.seconds[i] === ELSEWHERE) this.exact.set(2 * (at + i - start), from.exact.get(2 * i)!);
      if (from.delays[i] === ELSEWHERE) this.exact.set(2 * (at + i - start) + 1, from.exact.get(2 * i + 1)!);
    }
  }

  /** The dataset being added has all its deliveries. */
  end(): void {
    this.starts.push(this.seconds.length);
  }

  done(): DeliveryColumns {
    return new DeliveryColumns(
      Uint32Array.from(this.starts),
      this.seconds.done(),
      this.delays.done(),
      this.statuses.done(),
      this.exact,
    );
  }
}

/** Deliveries read for a few datasets, as Float64 times, before they go into a block. */
export class DeliveryBuffer {
  private readonly deadlineValues = growingFloats();
  private readonly deliveredValues = growingFloats();
  private readonly statusValues = growingBytes();
  /** pk → its run [start, end). */
  readonly runs = new Map<number, [number, number]>();

  get deadlines(): Float64Array {
    return this.deadlineValues.values;
  }

  get delivered(): Float64Array {
    return this.deliveredValues.values;
  }

  get statuses(): Uint8Array {
    return this.statusValues.values;
  }

  /** One delivery of `pk` (a dataset's deliveries arrive together, newest first). */
  add(pk: number, deadline: number, delivered: number, code: number): void {
    const at = this.deadlineValues.length;
    const run = this.runs.get(pk);
    if (run === undefined) this.runs.set(pk, [at, at + 1]);
    else run[1] = at + 1;
    this.deadlineValues.push(deadline);
    this.deliveredValues.push(delivered);
    this.statusValues.push(code);
  }
}
