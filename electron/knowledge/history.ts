/**
 * The org's delivery history in memory (docs/architecture.md#the-on-call-layer): every dataset's facts and its retained deliveries
 * in blocks of columns (knowledge/historyColumns.ts), kept current by re-reading only the datasets whose
 * stored record changed since the last look. A look reads the org's signatures a page at a time, then
 * the facts and deliveries of the changed datasets a slice at a time, with the event loop free between
 * them (a poll changes a handful; a 100k org is read whole once). Blocks without a change are shared
 * with the history before. The deadline clock, Upcoming, overdue and the reliability statistics all read
 * from here, so none of them runs SQL per look.
 */
import { datasetFactsOf, datasetSignatures, type DatasetFacts, eachDelivery } from '../query/history';
import type { DeadlineConfig } from '../../shared/schemas';
import type { Store } from '../store/database';
import { DeliveryBuffer, growingFloats } from './deliveryColumns';
import { BLOCK, BlockBuilder, type HistoryBlock, signatureHash } from './historyColumns';
import { OrgHistory } from './orgHistory';

export {
  BLOCK,
  type DatasetHistory,
  type HistoryBlock,
  STATUS_CODE,
  STATUS_NAME,
  type StatusCode,
  isSettled,
  statusCode,
} from './historyColumns';
export { OrgHistory } from './orgHistory';

/** Signatures read per page (a page of 2,000 rows is a few ms). */
const SCAN_PAGE = 2000;
/** Datasets whose facts and deliveries are read in one turn of the event loop (100 × 100 deliveries: a few tens of ms). */
const READ_SLICE = 100;
/** A held dataset's place is coded as block × PLACES + place (a block holds fewer). */
const PLACES = 65_536;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The org's datasets as the store has them now: pks ascending and their signatures' hashes. */
interface Scan {
  revision: string;
  size: number;
  pks: Float64Array;
  signatures: Float64Array;
}

/** Datasets gathered for the next block: held ones by (block, place), fresh ones by their scan index. */
class Pending {
  readonly blocks: (HistoryBlock | null)[] = [];
  readonly places: number[] = [];

  get size(): number {
    return this.places.length;
  }

  clear(): void {
    this.blocks.length = 0;
    this.places.length = 0;
  }
}

/**
 * Adjacent blocks merged where one is under half full and both fit in one: datasets added a few per
 * sync (or blocks rebuilt after removals) would otherwise leave many small blocks.
 */
function compact(blocks: HistoryBlock[], size: number, intern: Map<string, string>): HistoryBlock[] {
  const out: HistoryBlock[] = [];
  for (const block of blocks) {
    if (block.size === 0) continue;
    const last = out[out.length - 1];
    if (last !== undefined && last.size + block.size <= size && Math.min(last.size, block.size) < size / 2) {
      const builder = new BlockBuilder(intern);
      for (let k = 0; k < last.size; k += 1) builder.addHeld(last, k);
      for (let k = 0; k < block.size; k += 1) builder.addHeld(block, k);
      out[out.length - 1] = builder.build();
    } else out.push(block);
  }
  return out;
}

export interface HistoryIndexOptions {
  /** Between two slices of a large read (default: the next turn of the event loop). */
  between?: () => Promise<void>;
  /** Datasets a block holds at most (default BLOCK; tests make it small to see blocks kept and built). */
  blockSize?: number;
}

export class HistoryIndex {
  private readonly orgs = new Map<string, OrgHistory>();
  private readonly pending = new Map<string, Promise<OrgHistory>>();
  private readonly between: () => Promise<void>;
  private readonly blockSize: number;
  /** One object per distinct deadline config, across reads. */
  private readonly configs = new Map<string, DeadlineConfig>();
  /** Datasets whose facts and deliveries were read (not kept from before): tests and measurements read it. */
  datasetsRead = 0;

  constructor(
    private readonly store: Store,
    options: HistoryIndexOptions = {},
  ) {
    this.between = options.between ?? nextTurn;
    this.blockSize = Math.min(options.blockSize ?? BLOCK, PLACES);
  }

  /** The org's history as of the store's current data (re-reading only what changed since the last look). */
  async current(orgId: string): Promise<OrgHistory> {
    const held = this.orgs.get(orgId);
    if (held !== undefined && held.revision === this.store.dataRevision) return held;
    // One read at a time per org: a second caller waits for the first and then looks again.
    const running = this.pending.get(orgId);
    if (running !== undefined) {
      await running.catch(() => undefined);
      return this.current(orgId);
    }
    const reading = this.read(orgId, held).finally(() => this.pending.delete(orgId));
    this.pending.set(orgId, reading);
    return reading;
  }

  /** The history last read, without looking for changes (null: never read). */
  held(orgId: string): OrgHistory | null {
    return this.orgs.get(orgId) ?? null;
  }

  /** Forgets an org (it was removed), so its memory goes. */
  forget(orgId: string): void {
    this.orgs.delete(orgId);
  }

  private async read(orgId: string, held: OrgHistory | undefined): Promise<OrgHistory> {
    const scan = await this.scan(orgId);
    const blocks = await this.assemble(orgId, scan, held?.blocks ?? []);
    const history = new OrgHistory(
      orgId,
      // Read in slices: a commit between them leaves this history behind, so the next look reads again.
      this.store.dataRevision === scan.revision ? scan.revision : `${scan.revision}~`,
      blocks,
    );
    this.orgs.set(orgId, history);
    return history;
  }

  /** Every dataset's pk and signature, a page at a time. */
  private async scan(orgId: string): Promise<Scan> {
    const pks = growingFloats();
    const signatures = growingFloats();
    let revision = '';
    let after = Number.MIN_SAFE_INTEGER;
    for (let page = 0; ; page += 1) {
      if (page > 0) await this.between();
      const read = await this.store.whenReadable(() => {
        if (page === 0) revision = this.store.dataRevision;
        return datasetSignatures(this.store, orgId, after, SCAN_PAGE, (pk, signature) => {
          pks.push(pk);
          signatures.push(signatureHash(signature));
          after = pk;
        });
      });
      if (read < SCAN_PAGE) break;
    }
    return { revision, size: pks.length, pks: pks.values, signatures: signatures.values };
  }

  /**
   * The new blocks: a held block whose datasets are all still there, unchanged and alone in its pk range
   * is kept as it is; the others are built anew from their unchanged datasets and fresh reads.
   */
  private async assemble(orgId: string, scan: Scan, held: readonly HistoryBlock[]): Promise<HistoryBlock[]> {
    // Each scanned dataset's place in the held blocks (block × PLACES + place), -1 when it is read afresh.
    const heldAt = new Float64Array(scan.size).fill(-1);
    const kept = new Uint8Array(held.length).fill(1);
    let b = 0;
    let k = 0;
    const advance = () => {
      k += 1;
      if (k === held[b]!.size) [b, k] = [b + 1, 0];
    };
    for (let i = 0; i < scan.size; i += 1) {
      const pk = scan.pks[i]!;
      // Held datasets before this pk are gone.
      while (b < held.length && held[b]!.pks[k]! < pk) {
        kept[b] = 0;
        advance();
      }
      if (b < held.length && held[b]!.pks[k] === pk) {
        if (held[b]!.signatures[k] === scan.signatures[i]) heldAt[i] = b * PLACES + k;
        else kept[b] = 0;
        advance();
      } else if (b < held.length && k > 0) {
        kept[b] = 0; // a new dataset inside the block's pk range
      }
    }
    for (; b < held.length; b += 1) kept[b] = 0;

    const intern = new Map<string, string>();
    const out: HistoryBlock[] = [];
    const pending = new Pending();
    const flush = async () => {
      if (pending.size > 0) out.push(await this.build(orgId, scan, pending, intern));
      pending.clear();
    };
    for (let i = 0; i < scan.size;) {
      const at = heldAt[i]!;
      const block = at >= 0 && at % PLACES === 0 ? at / PLACES : -1;
      if (block >= 0 && kept[block] === 1) {
        await flush();
        out.push(held[block]!);
        i += held[block]!.size;
        continue;
      }
      // A held block's start starts a new block too: a change rebuilds its own block, not its neighbours.
      if (block >= 0) await flush();
      if (at >= 0) {
        pending.blocks.push(held[Math.floor(at / PLACES)]!);
        pending.places.push(at % PLACES);
      } else {
        pending.blocks.push(null);
        pending.places.push(i);
      }
      if (pending.size === this.blockSize) await flush();
      i += 1;
    }
    await flush();
    return compact(out, this.blockSize, intern);
  }

  /** One block of `pending`, reading the fresh datasets' facts and deliveries a slice at a time. */
  private async build(
    orgId: string,
    scan: Scan,
    pending: Pending,
    intern: Map<string, string>,
  ): Promise<HistoryBlock> {
    const fresh: number[] = [];
    for (let p = 0; p < pending.size; p += 1)
      if (pending.blocks[p] === null) fresh.push(scan.pks[pending.places[p]!]!);
    const facts = new Map<number, DatasetFacts>();
    const deliveries = new DeliveryBuffer();
    for (let start = 0; start < fresh.length; start += READ_SLICE) {
      await this.between();
      const slice = fresh.slice(start, start + READ_SLICE);
      // Facts and deliveries in one turn: each slice waits for a chunked sync commit, never half of one.
      await this.store.whenReadable(() => {
        datasetFactsOf(this.store, orgId, slice, this.configs, (read) => facts.set(read.pk, read));
        eachDelivery(this.store, slice, (pk, deadline, delivered, code) =>
          deliveries.add(pk, deadline, delivered, code),
        );
      });
    }
    this.datasetsRead += fresh.length;
    const builder = new BlockBuilder(intern);
    for (let p = 0; p < pending.size; p += 1) {
      const block = pending.blocks[p];
      if (block !== null && block !== undefined) {
        builder.addHeld(block, pending.places[p]!);
        continue;
      }
      const i = pending.places[p]!;
      const read = facts.get(scan.pks[i]!);
      // Removed since the scan: the history's revision is behind, and the next look reads again.
      if (read === undefined) continue;
      const [from, to] = deliveries.runs.get(read.pk) ?? [0, 0];
      builder.addRead(read, scan.signatures[i]!, deliveries, from, to);
    }
    return builder.build();
  }
}
