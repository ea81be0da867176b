/**
 * The remote's answers as the sync receives them, sized per record while recording is on: the "changed
 * records" of the disk budget (docs/architecture.md#performance-budgets) are the records a cycle wrote, measured as the JSON the
 * remote sent for them. A fetch the sync client is given (its `fetch` option), so nothing is patched.
 */
import type { FetchLike } from '../electron/sync/client';
import { REMOTE_PATHS } from '../electron/sync/remote';

/** Statuses whose answers carry no body (a Response refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

export class ReceivedRecords {
  private recording = false;
  /** datasetId → bytes of its latest record received while recording. */
  private readonly datasets = new Map<string, number>();
  private tasks = 0;

  /** Passes answers through untouched unless recording (buffering every page would add to memory). */
  readonly fetch: FetchLike = async (url, init) => {
    const response = await fetch(url, init);
    if (!this.recording) return response;
    const text = await response.text();
    if (response.ok) this.note(new URL(url).pathname, text);
    return new Response(NO_BODY.has(response.status) ? null : text, {
      status: response.status,
      headers: response.headers,
    });
  };

  /** Starts a new tally. */
  start(): void {
    this.datasets.clear();
    this.tasks = 0;
    this.recording = true;
  }

  stop(): void {
    this.recording = false;
  }

  /** JSON bytes of these datasets' records (as last received) plus every tasks record received. */
  bytesOf(datasetIds: Iterable<string>): number {
    let total = this.tasks;
    for (const id of datasetIds) total += this.datasets.get(id) ?? 0;
    return total;
  }

  private note(path: string, text: string): void {
    if (path.endsWith('/tasks')) {
      this.tasks += Buffer.byteLength(text);
      return;
    }
    const body = JSON.parse(text) as { items?: unknown[]; datasetId?: unknown };
    const records = path === REMOTE_PATHS.list ? (body.items ?? []) : [body];
    for (const record of records) {
      const id = (record as { datasetId?: unknown }).datasetId;
      if (typeof id === 'string') this.datasets.set(id, Buffer.byteLength(JSON.stringify(record)));
    }
  }
}
