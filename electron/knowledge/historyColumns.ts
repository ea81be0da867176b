/**
 * How the on-call layer holds an org's history (docs/architecture.md#the-on-call-layer): in blocks of
 * up to BLOCK datasets, each a set of columns — the facts as arrays of shared strings, the deliveries of
 * all its datasets end to end in typed arrays (knowledge/deliveryColumns.ts) — so a 100k org is some hundred blocks rather than
 * 100k objects with three typed arrays each (docs/decisions.md "The history in columns"). A block never
 * changes once built: a refresh builds anew only the blocks whose datasets changed and shares the rest.
 */
import { type DatasetFacts, STATUS_CODE, type StatusCode } from '../query/history';
import type { DeadlineConfig } from '../../shared/schemas';
import { type DeliveryBuffer, type DeliveryColumns, DeliveryWriter } from './deliveryColumns';

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

/** Up to BLOCK datasets in pk order, in columns (see the file's comment). Never changed once built. */
export interface HistoryBlock {
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
  /** Dataset k's deliveries are [deliveries.starts[k], deliveries.starts[k + 1]), newest first. */
  readonly deliveries: DeliveryColumns;
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
  private readonly deliveries = new DeliveryWriter();

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
    let latestSettled = NaN;
    for (let i = start; i < end; i += 1) {
      const code = columns.statuses[i]!;
      this.deliveries.add(columns.deadlines[i]!, columns.delivered[i]!, code);
      if (Number.isNaN(latestSettled) && isSettled(code)) latestSettled = columns.deadlines[i]!;
    }
    this.deliveries.end();
    this.latestSettled.push(latestSettled);
  }

  /** A dataset as given whole (tests, and the one-dataset answers' shape). */
  addDataset(dataset: DatasetHistory, signature = 0): void {
    this.addFacts(dataset, signature);
    for (let i = 0; i < dataset.statuses.length; i += 1)
      this.deliveries.add(dataset.deadlines[i]!, dataset.delivered[i]!, dataset.statuses[i]!);
    this.deliveries.end();
    this.latestSettled.push(dataset.latestSettledDeadline);
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
    const { deliveries } = block;
    this.deliveries.copy(deliveries, deliveries.starts[k]!, deliveries.starts[k + 1]!);
    this.deliveries.end();
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
      deliveries: this.deliveries.done(),
    };
  }
}
