/**
 * The records a sync cycle found changed, held until its commit. A first crawl changes the whole org
 * (about 80 MB of records at 10k datasets, 800 MB at 100k: past the memory budget (docs/architecture.md#performance-budgets) on top
 * of the database), so records past `memoryBytes` go to a spool file and are read back in batches
 * while they are saved. What the cycle needs of every change before then — how many, and the FAILED
 * delivery each names (failedTasks.ts) — stays in memory.
 */
import { tmpdir } from 'node:os';
import type { DatasetRecord } from '../../shared/schemas';
import type { ChunkRunner } from '../store/database';
import { failedDeliveryOf } from './fingerprint';
import { inSlices } from './slices';
import { SpoolFile } from './spool';

export interface RecordChange {
  record: DatasetRecord;
  hash: string;
}

export interface SpoolOptions {
  /** Where records past the bound go: the data directory when there is one, else the temp folder. */
  dir: string;
  /** Bytes of record JSON (as received) kept in memory; past them, records are spooled. */
  memoryBytes: number;
}

/**
 * 8 MiB of JSON: about 800 records of a first crawl (100 deliveries each) or several thousand of a
 * later one. Memory stays a few MB whatever the org's size, and a fast poll (the records of troubled
 * datasets that changed) stays far below it, so polls never write a spool.
 */
export const DEFAULT_SPOOL_BYTES = 8 * 2 ** 20;

export const defaultSpoolOptions = (options: Partial<SpoolOptions> = {}): SpoolOptions => ({
  dir: options.dir ?? tmpdir(),
  memoryBytes: options.memoryBytes ?? DEFAULT_SPOOL_BYTES,
});

/** What a commit needs of the changes: how many, and each of them once, in order. */
export interface Changes {
  readonly count: number;
  each(slice: ChunkRunner, fn: (change: RecordChange) => void, signal?: AbortSignal): Promise<void>;
}

export class ChangeSet implements Changes {
  count = 0;
  /** The FAILED delivery of each changed FAILED record, in order. */
  readonly failedDeliveries: string[] = [];
  private readonly kept: RecordChange[] = [];
  private keptBytes = 0;
  /** Lines not yet written to the spool, in UTF-8; undefined until the bound is passed. */
  private pending: Buffer[] | undefined;
  private spool: SpoolFile | undefined;

  /** `onSpool` is told once, when the first records go to disk. */
  constructor(
    private readonly options: SpoolOptions,
    private readonly onSpool: (path: string) => void = () => {},
  ) {}

  /** `bytes`: the record's JSON length as received. Written to the spool by the next `flush`. */
  add(change: RecordChange, bytes: number): void {
    this.count += 1;
    const failed = failedDeliveryOf(change.record);
    if (failed !== null) this.failedDeliveries.push(failed);
    // Once one record is spooled, all later ones are too: the commit reads them back in order.
    if (this.pending === undefined && this.keptBytes + bytes <= this.options.memoryBytes) {
      this.kept.push(change);
      this.keptBytes += bytes;
      return;
    }
    // Encoded at once: the text dies young, while bytes waiting for the next flush cost no V8 heap.
    (this.pending ??= []).push(Buffer.from(`${JSON.stringify(change)}\n`));
  }

  /** Writes the spooled records added since the last flush. */
  async flush(): Promise<void> {
    if (!this.pending?.length) return;
    const lines = this.pending;
    this.pending = [];
    try {
      if (!this.spool) {
        this.spool = await SpoolFile.create(this.options.dir);
        this.onSpool(this.spool.path);
      }
      await this.spool.append(lines);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`could not keep the changed datasets on disk in ${this.options.dir}: ${reason}`);
    }
  }

  async each(slice: ChunkRunner, fn: (change: RecordChange) => void, signal?: AbortSignal): Promise<void> {
    await inSlices(slice, this.kept, fn, signal);
    if (!this.spool) return;
    await this.flush();
    for await (const lines of this.spool.lines()) {
      await inSlices(slice, lines, (line) => fn(JSON.parse(line) as RecordChange), signal);
    }
  }

  /** Removes the spool, if any: call when the cycle ends, however it ends. */
  async discard(): Promise<void> {
    this.pending = undefined;
    const spool = this.spool;
    this.spool = undefined;
    await spool?.remove();
  }
}
