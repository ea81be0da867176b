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

interface Received {
  record: DatasetRecord;
  /** Its JSON length as received: what it weighs against the changes' memory bound. */
  bytes: number;
}

export class ChangeCollector {
  /** Every datasetId the remote sent this cycle. */
  readonly seen = new Set<string>();
  /** The stored fingerprint of every dataset looked up so far (null: not from this remote). */
  readonly stored = new Map<string, string | null>();

  constructor(
    private readonly lookup: HashLookup,
    private readonly counts: SyncCounts,
    private readonly host: string,
    readonly changes: ChangeSet,
  ) {}

  /** Adds records (objects, or a list page's item texts): parsed in slices, then compared with the mirror. */
  async addAll(items: readonly unknown[], signal?: AbortSignal): Promise<void> {
    const received: Received[] = [];
    await inSlices(
      freeSlice,
      items,
      (item) => {
        const text = typeof item === 'string' ? item : undefined;
        const record = this.normalize(text === undefined ? item : parseItem(text, this.host));
        if (record) received.push({ record, bytes: (text ?? JSON.stringify(item)).length });
      },
      signal,
    );
    const known = await this.lookup(received.map(({ record }) => record.datasetId));
    for (const [datasetId, hash] of known) this.stored.set(datasetId, hash);
    // Spooled records are written between slices, so at most a slice's worth waits in memory.
    const spooling: ChunkRunner = async (fn) => {
      await this.changes.flush();
      return freeSlice(fn);
    };
    await inSlices(
      spooling,
      received,
      ({ record, bytes }) => {
        const hash = fingerprint(record);
        if (this.stored.get(record.datasetId) !== hash) this.changes.add({ record, hash }, bytes);
      },
      signal,
    );
    await this.changes.flush();
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
