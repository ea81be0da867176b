/**
 * How the on-call layer holds an org's history (docs/architecture.md#the-on-call-layer): in blocks of
 * up to BLOCK datasets, each a set of columns — the facts as arrays of shared strings, the deliveries of
 * all its datasets end to end in three typed arrays — so a 100k org is some hundred blocks rather than
 * 100k objects with three typed arrays each (docs/decisions.md "The history in columns"). A block never
 * changes once built: a refresh builds anew only the blocks whose datasets changed and shares the rest.
 */
import { type DatasetFacts, STATUS_CODE, type StatusCode } from '../query/history';
import type { DeadlineConfig } from '../../shared/schemas';

export { STATUS_CODE, type StatusCode };

export const STATUS_NAME: readonly (string | null)[] = [
  null,
  'HEALTHY',
  'DELIVERED_LATE',
  'MISSING',
  'FAILED',
  'IN_PROGRESS',
];

export function statusCode(status: string | null): StatusCode {
  const code = status === null ? undefined : (STATUS_CODE as Record<string, StatusCode>)[status];
  return code ?? STATUS_CODE.UNKNOWN;
}

/** A settled delivery counts in rates and habits; one in progress (or of unknown status) waits. */
export const isSettled = (code: number): boolean => code >= STATUS_CODE.HEALTHY && code <= STATUS_CODE.FAILED;

/** One dataset's history: its facts and its deliveries, newest first (times in epoch ms, NaN unknown). */
export interface DatasetHistory extends DatasetFacts {
  deadlines: Float64Array;
  delivered: Float64Array;
  statuses: Uint8Array;
  /** The deadline of its newest settled delivery (NaN: none): deadlines after it are not verified yet. */
  latestSettledDeadline: number;
}

/** Datasets a block holds at most: a refresh that changes one dataset copies this many. */
export const BLOCK = 1024;

/** Deliveries as the columns hold them: dataset k's run is [starts[k], starts[k + 1]), newest first. */
export interface DeliveryColumns {
  starts: Uint32Array;
  deadlines: Float64Array;
  delivered: Float64Array;
  statuses: Uint8Array;
}

/** Up to BLOCK datasets in pk order, in columns (see the file's comment). Never changed once built. */
export interface HistoryBlock extends DeliveryColumns {
  readonly size: number;
  readonly pks: Float64Array;
  /** Each dataset's signature as a number (signatureHash): what a refresh compares. */
  readonly signatures: Float64Array;
  readonly ids: readonly string[];
  readonly names: readonly (string | null)[];
  readonly supplierIds: readonly (string | null)[];
  readonly supplierNames: readonly (string | null)[];
  readonly productNames: readonly (string | null)[];
  /** The dataset's status (its latest delivery's), as stored. */
  readonly datasetStatuses: readonly (string | null)[];
  readonly configs: readonly DeadlineConfig[];
  readonly latestSettled: Float64Array;
}

/**
 * A signature text as a 53-bit number (two FNV-1a hashes): a refresh compares a dataset's against the
 * one it was read with. Two different texts of one dataset agree with a chance of 2⁻⁵³.
 */
export function signatureHash(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}

/** A growing typed array (no boxed array for a block's deliveries). */
export class Grow<T extends Float64Array | Uint8Array> {
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
const growingBytes = () => new Grow<Uint8Array>(new Uint8Array(0), (n) => new Uint8Array(n));

/** Gathers datasets (from earlier blocks or fresh reads) into one new block. */
export class BlockBuilder {
  private readonly pks: number[] = [];
  private readonly signatures: number[] = [];
  private readonly ids: string[] = [];
  private readonly names: (string | null)[] = [];
  private readonly supplierIds: (string | null)[] = [];
  private readonly supplierNames: (string | null)[] = [];
  private readonly productNames: (string | null)[] = [];
  private readonly datasetStatuses: (string | null)[] = [];
  private readonly configs: DeadlineConfig[] = [];
  private readonly latestSettled: number[] = [];
  private readonly starts: number[] = [0];
  private readonly deadlines = growingFloats();
  private readonly delivered = growingFloats();
  private readonly statuses = growingBytes();

  /**
   * `intern` keeps one copy of each text across the blocks of a read (a supplier's name is shared by its
   * thousands of datasets rather than read into as many strings).
   */
  constructor(private readonly intern: Map<string, string> = new Map()) {}

  get size(): number {
    return this.pks.length;
  }

  private text(value: string | null): string | null {
    if (value === null) return null;
    const held = this.intern.get(value);
    if (held !== undefined) return held;
    this.intern.set(value, value);
    return value;
  }

  private addFacts(facts: DatasetFacts, signature: number): void {
    this.pks.push(facts.pk);
    this.signatures.push(signature);
    this.ids.push(facts.datasetId);
    this.names.push(this.text(facts.name));
    this.supplierIds.push(this.text(facts.supplierId));
    this.supplierNames.push(this.text(facts.supplierName));
    this.productNames.push(this.text(facts.dataProductName));
    this.datasetStatuses.push(this.text(facts.status));
    this.configs.push(facts.config);
  }

  /** A dataset read afresh; its deliveries are `columns`' [start, end), newest first. */
  addRead(facts: DatasetFacts, signature: number, columns: DeliveryBuffer, start: number, end: number): void {
    this.addFacts(facts, signature);
    this.deadlines.copy(columns.deadlines, start, end);
    this.delivered.copy(columns.delivered, start, end);
    this.statuses.copy(columns.statuses, start, end);
    let latestSettled = NaN;
    for (let i = start; i < end; i += 1)
      if (isSettled(columns.statuses[i]!)) {
        latestSettled = columns.deadlines[i]!;
        break;
      }
    this.latestSettled.push(latestSettled);
    this.starts.push(this.deadlines.length);
  }

  /** A dataset as given whole (tests, and the one-dataset answers' shape). */
  addDataset(dataset: DatasetHistory, signature = 0): void {
    this.addFacts(dataset, signature);
    const count = dataset.statuses.length;
    this.deadlines.copy(dataset.deadlines, 0, count);
    this.delivered.copy(dataset.delivered, 0, count);
    this.statuses.copy(dataset.statuses, 0, count);
    this.latestSettled.push(dataset.latestSettledDeadline);
    this.starts.push(this.deadlines.length);
  }

  /** Dataset `k` of an earlier block, unchanged. */
  addHeld(block: HistoryBlock, k: number): void {
    this.pks.push(block.pks[k]!);
    this.signatures.push(block.signatures[k]!);
    this.ids.push(block.ids[k]!);
    this.names.push(block.names[k]!);
    this.supplierIds.push(block.supplierIds[k]!);
    this.supplierNames.push(block.supplierNames[k]!);
    this.productNames.push(block.productNames[k]!);
    this.datasetStatuses.push(block.datasetStatuses[k]!);
    this.configs.push(block.configs[k]!);
    this.latestSettled.push(block.latestSettled[k]!);
    const start = block.starts[k]!;
    const end = block.starts[k + 1]!;
    this.deadlines.copy(block.deadlines, start, end);
    this.delivered.copy(block.delivered, start, end);
    this.statuses.copy(block.statuses, start, end);
    this.starts.push(this.deadlines.length);
  }

  build(): HistoryBlock {
    return {
      size: this.pks.length,
      pks: Float64Array.from(this.pks),
      signatures: Float64Array.from(this.signatures),
      // Copies of their exact length: a pushed array keeps up to half again as many slots.
      ids: this.ids.slice(),
      names: this.names.slice(),
      supplierIds: this.supplierIds.slice(),
      supplierNames: this.supplierNames.slice(),
      productNames: this.productNames.slice(),
      datasetStatuses: this.datasetStatuses.slice(),
      configs: this.configs.slice(),
      latestSettled: Float64Array.from(this.latestSettled),
      starts: Uint32Array.from(this.starts),
      deadlines: this.deadlines.done(),
      delivered: this.delivered.done(),
      statuses: this.statuses.done(),
    };
  }
}

/** Deliveries read for a few datasets, end to end (see DeliveryColumns), before they go into a block. */
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
