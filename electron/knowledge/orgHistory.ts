/**
 * One org's history as read at one data revision: its blocks of columns (knowledge/historyColumns.ts) in
 * pk order, and the lookups the answers need — a dataset by its place in that order (its ordinal) or by
 * its id. Immutable: a refresh makes a new one that shares the unchanged blocks, so a computation that
 * runs in slices sees one revision throughout.
 */
import type { DatasetFacts } from '../query/history';
import { BLOCK, BlockBuilder, type DatasetHistory, type HistoryBlock } from './historyColumns';

export class OrgHistory {
  readonly size: number;
  /** offsets[b]: the ordinal of block b's first dataset; the last entry is `size`. */
  private readonly offsets: Uint32Array;
  /** The datasets in id order, made on the first look-up by id (most answers walk the blocks instead). */
  private sorted: { ordinals: Uint32Array; ids: string[] } | null = null;

  constructor(
    readonly orgId: string,
    /** The store's data revision this history was read at. */
    readonly revision: string,
    readonly blocks: readonly HistoryBlock[],
  ) {
    this.offsets = new Uint32Array(blocks.length + 1);
    blocks.forEach((block, b) => (this.offsets[b + 1] = this.offsets[b]! + block.size));
    this.size = this.offsets[blocks.length]!;
  }

  /** A history of these datasets, in this order (tests, and one dataset's answers). */
  static of(orgId: string, revision: string, datasets: readonly DatasetHistory[]): OrgHistory {
    const blocks: HistoryBlock[] = [];
    const intern = new Map<string, string>();
    for (let start = 0; start < datasets.length; start += BLOCK) {
      const builder = new BlockBuilder(intern);
      for (const dataset of datasets.slice(start, start + BLOCK)) builder.addDataset(dataset);
      blocks.push(builder.build());
    }
    return new OrgHistory(orgId, revision, blocks);
  }

  /** The ordinal of block `b`'s first dataset. */
  firstOf(b: number): number {
    return this.offsets[b]!;
  }

  /** The block holding the dataset at `ordinal` (0 ≤ ordinal < size). */
  blockOf(ordinal: number): number {
    let low = 0;
    let high = this.blocks.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.offsets[middle]! <= ordinal) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /**
   * The datasets in id order, made once per history: Upcoming lists a deadline's datasets so, and a
   * look-up by id is a binary search in it (no map of 100k entries beside it).
   */
  idOrder(): { ordinals: Uint32Array; ids: string[] } {
    if (this.sorted === null) {
      const all = this.blocks.flatMap((block) => block.ids);
      // A repeated id (not in a stored org) keeps the history's order among its copies.
      const ordinals = Uint32Array.from(all.keys()).sort((a, b) =>
        all[a]! < all[b]! ? -1 : all[a]! > all[b]! ? 1 : a - b,
      );
      this.sorted = { ordinals, ids: Array.from(ordinals, (ordinal) => all[ordinal]!) };
    }
    return this.sorted;
  }

  /** The ordinal of the dataset with this id (a repeated id: its last); -1: the org has none. */
  indexOf(datasetId: string): number {
    const { ordinals, ids } = this.idOrder();
    // The last place whose id is at most the one asked for.
    let low = -1;
    let high = ids.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (ids[middle]! <= datasetId) low = middle;
      else high = middle - 1;
    }
    return low >= 0 && ids[low] === datasetId ? ordinals[low]! : -1;
  }

  /** The facts of the dataset at `ordinal`. */
  factsAt(ordinal: number): DatasetFacts {
    const b = this.blockOf(ordinal);
    const block = this.blocks[b]!;
    const k = ordinal - this.offsets[b]!;
    return {
      pk: block.pks[k]!,
      datasetId: block.ids[k]!,
      name: block.names[k]!,
      supplierId: block.supplierIds[k]!,
      supplierName: block.supplierNames[k]!,
      dataProductName: block.productNames[k]!,
      status: block.datasetStatuses[k]!,
      config: block.configs[k]!,
    };
  }

  /** The dataset at `ordinal`, whole: its deliveries as Float64 times. */
  datasetAt(ordinal: number): DatasetHistory {
    const b = this.blockOf(ordinal);
    const block = this.blocks[b]!;
    const k = ordinal - this.offsets[b]!;
    const { deliveries } = block;
    const start = deliveries.starts[k]!;
    const count = deliveries.starts[k + 1]! - start;
    return {
      ...this.factsAt(ordinal),
      deadlines: Float64Array.from({ length: count }, (_, i) => deliveries.deadline(start + i)),
      delivered: Float64Array.from({ length: count }, (_, i) => deliveries.delivered(start + i)),
      statuses: deliveries.statuses.slice(start, start + count),
      latestSettledDeadline: block.latestSettled[k]!,
    };
  }

  /** The dataset with this id, whole; undefined: the org has none. */
  dataset(datasetId: string): DatasetHistory | undefined {
    const ordinal = this.indexOf(datasetId);
    return ordinal < 0 ? undefined : this.datasetAt(ordinal);
  }

  /**
   * Every dataset's facts, as objects (the bench counts them and their schedules). It makes an object
   * per dataset — what the columns exist to avoid — so no answer calls it: they walk `blocks`.
   */
  get datasets(): DatasetFacts[] {
    return Array.from({ length: this.size }, (_, ordinal) => this.factsAt(ordinal));
  }

  /** The facts of the dataset with this id (the handoff's names); undefined: the org has none. */
  facts(datasetId: string): DatasetFacts | undefined {
    const ordinal = this.indexOf(datasetId);
    return ordinal < 0 ? undefined : this.factsAt(ordinal);
  }
}
