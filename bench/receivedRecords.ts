/**
 * The remote's answers as the sync receives them, sized per record while recording is on: the "changed
 * records" of the disk budget (docs/architecture.md#performance-budgets) are the records a cycle wrote, measured as the JSON the
 * remote sent for them. A fetch the sync client is given (its `fetch` option), so nothing is patched.
 *
 * Which received records the cycle wrote is told by their stored fingerprints: each one's as it was when
 * the record first arrived (asked then, before the cycle can write it) against its fingerprint after the
 * cycle. Only the received datasets' are held, so the bench adds no org-sized map to the engine it measures.
 */
import type { Fingerprints } from '../electron/store/tables/fingerprints';
import type { FetchLike } from '../electron/sync/client';
import { PageSplitter } from '../electron/sync/pageText';
import { REMOTE_PATHS } from '../electron/sync/remote';

/** The stored fingerprints of these datasets (those not stored are absent). */
export type StoredHashes = (datasetIds: readonly string[]) => Promise<Fingerprints>;

/** Statuses whose answers carry no body (a Response refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class ReceivedRecords {
  private recording = false;
  /** datasetId → bytes of its latest record received while recording. */
  private readonly datasets = new Map<string, number>();
  /** datasetId → its stored fingerprint when its record first arrived (undefined: not stored then). */
  private readonly before = new Map<string, string | null | undefined>();
  private tasks = 0;

  constructor(private readonly storedHashes: StoredHashes) {}

  /** Passes answers through untouched unless recording (buffering every page would add to memory). */
  readonly fetch: FetchLike = async (url, init) => {
    const response = await fetch(url, init);
    if (!this.recording) return response;
    const text = await response.text();
    if (response.ok) {
      // The bench's sizing of a page (a parse of it) is a task of its own, not part of the engine's
      // longest event-loop stall that the polls are judged by.
      await nextTurn();
      await this.note(new URL(url).pathname, text);
      await nextTurn();
    }
    return new Response(NO_BODY.has(response.status) ? null : text, {
      status: response.status,
      headers: response.headers,
    });
  };

  /** Starts a new tally. */
  start(): void {
    this.datasets.clear();
    this.before.clear();
    this.tasks = 0;
    this.recording = true;
  }

  stop(): void {
    this.recording = false;
  }

  /** The datasets received since `start`. */
  received(): string[] {
    return [...this.before.keys()];
  }

  /** The received datasets whose stored fingerprint is not what it was when they arrived: written. */
  changedBy(after: Fingerprints): string[] {
    return [...this.before].filter(([id, hash]) => after.get(id) !== hash).map(([id]) => id);
  }

  /** JSON bytes of these datasets' records (as last received) plus every tasks record received. */
  bytesOf(datasetIds: Iterable<string>): number {
    let total = this.tasks;
    for (const id of datasetIds) total += this.datasets.get(id) ?? 0;
    return total;
  }

  private async note(path: string, text: string): Promise<void> {
    if (path.endsWith('/tasks')) {
      this.tasks += Buffer.byteLength(text);
      return;
    }
    const arrived: string[] = [];
    let sliceEnd = performance.now() + SLICE_MS;
    for (const item of await itemsOf(path, text)) {
      const id = (JSON.parse(item.toString('utf8')) as { datasetId?: unknown }).datasetId;
      if (typeof id === 'string') {
        this.datasets.set(id, item.length);
        if (!this.before.has(id)) arrived.push(id);
      }
      // In slices, as the sync parses them: a page of 1,000 records read whole blocked the engine it
      // measures for 55 ms at 10k, counted as the engine's longest stall.
      if (performance.now() > sliceEnd) {
        await nextTurn();
        sliceEnd = performance.now() + SLICE_MS;
      }
    }
    // Before the answer reaches the sync: a cycle commits only once it has received every record.
    const stored = await this.storedHashes(arrived);
    for (const id of arrived) this.before.set(id, stored.get(id));
  }
}

/** The bench's share of the engine's turns while sizing a page. */
const SLICE_MS = 5;

/** The page is split this many bytes at a time, as it would arrive. */
const PUSH_BYTES = 256 * 1024;

/**
 * A list page's items, or a dataset answer, as the remote sent their JSON (split as the sync splits it,
 * in slices: a page of a 100k org split whole blocked the engine for 50–130 ms).
 */
async function itemsOf(path: string, text: string): Promise<Buffer[]> {
  const bytes = Buffer.from(text);
  if (path !== REMOTE_PATHS.list) return [bytes];
  const splitter = new PageSplitter();
  let sliceEnd = performance.now() + SLICE_MS;
  for (let at = 0; at < bytes.length; at += PUSH_BYTES) {
    splitter.push(bytes.subarray(at, at + PUSH_BYTES));
    if (performance.now() > sliceEnd) {
      await nextTurn();
      sliceEnd = performance.now() + SLICE_MS;
    }
  }
  const items = splitter.end()?.items;
  if (items) return items.map((item) => Buffer.from(item.buffer, item.byteOffset, item.byteLength));
  // A page the splitter leaves whole (no top-level items array): each item as compact JSON.
  const body = JSON.parse(text) as { items?: unknown[] };
  return (body.items ?? []).map((item) => Buffer.from(JSON.stringify(item)));
}
