/** Turns remote records into changes: normalized, fingerprinted, kept only when they differ from the mirror. */
import type { DatasetRecord } from '../../shared/schemas';
import type { SyncCounts } from '../../shared/sync';
import type { RecordChange } from './apply';
import { fingerprint } from './fingerprint';
import { normalizeRemoteRecord, parseItem } from './page';
import { freeSlice, inSlices } from './slices';

/**
 * The stored fingerprints of some datasets (absent: not stored). A crawl reads the whole org once; the
 * poll asks only for the datasets it received, so its cost does not grow with the org.
 */
export type HashLookup = (datasetIds: readonly string[]) => Promise<ReadonlyMap<string, string | null>>;

export class ChangeCollector {
  readonly changes: RecordChange[] = [];
  /** Every datasetId the remote sent this cycle. */
  readonly seen = new Set<string>();
  /** The stored fingerprint of every dataset looked up so far (null: not from this remote). */
  readonly stored = new Map<string, string | null>();

  constructor(
    private readonly lookup: HashLookup,
    private readonly counts: SyncCounts,
    private readonly host: string,
  ) {}

  /** Adds records (objects, or a list page's item texts): parsed in slices, then compared with the mirror. */
  async addAll(items: readonly unknown[], signal?: AbortSignal): Promise<void> {
    const records: DatasetRecord[] = [];
    await inSlices(
      freeSlice,
      items,
      (item) => {
        const record = this.normalize(typeof item === 'string' ? parseItem(item, this.host) : item);
        if (record) records.push(record);
      },
      signal,
    );
    const known = await this.lookup(records.map((record) => record.datasetId));
    for (const [datasetId, hash] of known) this.stored.set(datasetId, hash);
    await inSlices(
      freeSlice,
      records,
      (record) => {
        const hash = fingerprint(record);
        if (this.stored.get(record.datasetId) !== hash) this.changes.push({ record, hash });
      },
      signal,
    );
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
