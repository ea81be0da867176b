/** Turns remote records into changes: normalized, fingerprinted, kept only when they differ from the mirror. */
import type { SyncCounts } from '../../shared/sync';
import type { RecordChange } from './apply';
import { fingerprint } from './fingerprint';
import { normalizeRemoteRecord, parseItem } from './page';
import { freeSlice, inSlices } from './slices';

export class ChangeCollector {
  readonly changes: RecordChange[] = [];
  /** Every datasetId the remote sent this cycle. */
  readonly seen = new Set<string>();

  constructor(
    /** The org's stored datasets with their remote fingerprints (null: not from this remote). */
    readonly stored: ReadonlyMap<string, string | null>,
    private readonly counts: SyncCounts,
    private readonly host: string,
  ) {}

  /** A record: an object, or its JSON text (a list page item). */
  add(item: unknown): void {
    if (typeof item === 'string') item = parseItem(item, this.host);
    this.counts.received += 1;
    const { record, invalidValues } = normalizeRemoteRecord(item);
    if (record === null) {
      this.counts.skipped += 1;
      return;
    }
    this.counts.invalidValues += invalidValues;
    this.seen.add(record.datasetId);
    const hash = fingerprint(record);
    if (this.stored.get(record.datasetId) !== hash) this.changes.push({ record, hash });
  }

  /** Adds a page's items in slices (a 1000-record page takes longer than one stall budget). */
  addAll(items: readonly unknown[], signal?: AbortSignal): Promise<void> {
    return inSlices(freeSlice, items, (item) => this.add(item), signal);
  }
}
