/** Turns remote records into changes: normalized, fingerprinted, kept only when they differ from the mirror. */
import type { DatasetRecord } from '../../shared/schemas';
import type { SyncCounts } from '../../shared/sync';
import type { ChunkRunner } from '../store/database';
import type { ChangeSet } from './changes';
import { fingerprint } from './fingerprint';
import { normalizeRemoteRecord, parseItem } from './page';
import { freeSlice, inSlices } from './slices';

/**
 * The stored fingerprints of some datasets (absent: not stored). A crawl reads the whole org once; the
 * poll asks only for the datasets it received, so its cost does not grow with the org.
 */
export type HashLookup = (datasetIds: readonly string[]) => Promise<ReadonlyMap<string, string | null>>;

/** The whole org's stored fingerprints, read before the walk (a crawl), or a lookup per page (a poll). */
export type StoredHashes = ReadonlyMap<string, string | null> | HashLookup;

interface Received {
  record: DatasetRecord;
  /** Its JSON length as received: what it weighs against the changes' memory bound. */
  bytes: number;
  /** Its JSON as received, when it came as a list page's item (a view of the page's memory). */
  item?: Uint8Array;
}

export class ChangeCollector {
  /** Every datasetId the remote sent this cycle. */
  readonly seen = new Set<string>();
  /**
   * The stored fingerprint of every dataset looked up so far (null: not from this remote). Only a poll
   * looks them up: a crawl's are all in the map it was given.
   */
  readonly stored = new Map<string, string | null>();

  constructor(
    private readonly lookup: StoredHashes,
    private readonly counts: SyncCounts,
    private readonly host: string,
    readonly changes: ChangeSet,
  ) {}

  /** Adds records (objects, or a list page's items in UTF-8): parsed in slices, compared with the mirror. */
  async addAll(items: readonly unknown[], signal?: AbortSignal): Promise<void> {
    const lookup = this.lookup;
    if (typeof lookup !== 'function') return this.compareAsParsed(items, lookup, signal);
    const received: Received[] = [];
    await inSlices(
      freeSlice,
      items,
      (item) => {
        const each = this.receive(item);
        if (each) received.push(each);
      },
      signal,
    );
    const known = await lookup(received.map(({ record }) => record.datasetId));
    for (const [datasetId, hash] of known) this.stored.set(datasetId, hash);
    await inSlices(this.spooling, received, (each) => this.compare(each, this.stored), signal);
    await this.changes.flush();
  }

  /**
   * With every stored fingerprint at hand, each record is compared as soon as it is parsed: a record
   * that did not change (or went to the spool) is garbage within its slice, where holding a page of
   * them until all were parsed moved them to V8's old generation, to wait for a full collection.
   */
  private async compareAsParsed(
    items: readonly unknown[],
    stored: ReadonlyMap<string, string | null>,
    signal?: AbortSignal,
  ): Promise<void> {
    await inSlices(
      this.spooling,
      items,
      (item) => {
        const received = this.receive(item);
        if (received) this.compare(received, stored);
      },
      signal,
    );
    await this.changes.flush();
  }

  /** Spooled records are written between slices, so at most a slice's worth waits in memory. */
  private readonly spooling: ChunkRunner = async (fn) => {
    await this.changes.flush();
    return freeSlice(fn);
  };

  private compare({ record, bytes, item }: Received, stored: ReadonlyMap<string, string | null>): void {
    const hash = fingerprint(record);
    if (stored.get(record.datasetId) !== hash) this.changes.add({ record, hash }, bytes, item);
  }

  /** An item (an object, or a list page's item in UTF-8) as a normalized record; null if skipped. */
  private receive(item: unknown): Received | null {
    const bytes = item instanceof Uint8Array ? item : undefined;
    const record = this.normalize(bytes === undefined ? item : parseItem(bytes, this.host));
    if (record === null) return null;
    return bytes === undefined
      ? { record, bytes: JSON.stringify(item).length }
      : { record, bytes: bytes.length, item: bytes };
  }

  private normalize(item: unknown): DatasetRecord | null {
    this.counts.received += 1;
    const { record, invalidValues } = normalizeRemoteRecord(item);
    if (record === null) {
      this.counts.skipped += 1;
      return null;
    }
    this.counts.invalidValues += invalidValues;
    this.seen.add(record.datasetId);
    return record;
  }
}
