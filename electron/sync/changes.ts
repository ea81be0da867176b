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
import { normalizeRemoteRecord } from './page';
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

/**
 * A spooled change, one line: `r` and the item as the remote sent it (its newlines, whitespace between
 * tokens, made spaces), or `n` and the normalized record as JSON; then its hash, a tab, and the JSON.
 */
function spoolLine({ record, hash }: RecordChange, received: Uint8Array | undefined): Buffer {
  if (/[\t\n]/.test(hash))
    throw new Error(`a record's hash holds a tab or a newline: ${JSON.stringify(hash)}`);
  if (received === undefined) return Buffer.from(`n${hash}\t${JSON.stringify(record)}\n`);
  const head = Buffer.from(`r${hash}\t`);
  const line = Buffer.concat([head, received, NEWLINE]);
  // Inside JSON strings a newline is always escaped: a newline byte of the item lies between tokens.
  for (
    let at = line.indexOf(0x0a, head.length);
    at !== -1 && at < line.length - 1;
    at = line.indexOf(0x0a, at + 1)
  )
    line[at] = 0x20;
  return line;
}

function readSpoolLine(line: string): RecordChange {
  const tab = line.indexOf('\t');
  const hash = line.slice(1, tab);
  const text = line.slice(tab + 1);
  // An item's leading byte-order mark was dropped when it was received (pageText.ts), and is again.
  const json: unknown = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (line[0] === 'n') return { record: json as DatasetRecord, hash };
  // The same item normalized the same way as when it was received: it was kept then, so it is now.
  const { record } = normalizeRemoteRecord(json);
  if (record === null) throw new Error('a spooled record no longer reads as a dataset record');
  return { record, hash };
}

const NEWLINE = Buffer.from('\n');

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

  /**
   * `bytes`: the record's JSON length as received. `received`: that JSON itself (a list page's item),
   * spooled as it is instead of the record made again into JSON (3 s of a 100k first sync), and
   * normalized again when read back. Written to the spool by the next `flush`.
   */
  add(change: RecordChange, bytes: number, received?: Uint8Array): void {
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
    (this.pending ??= []).push(spoolLine(change, received));
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
      await inSlices(slice, lines, (line) => fn(readSpoolLine(line)), signal);
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
