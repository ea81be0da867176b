/**
 * Stored form of a tasks record: its tasks in the contract's order, as deflated JSON (fast level;
 * records are read one at a time). An import of thousands of records deflates them on a worker thread
 * (`TasksPacker`), so the main thread parses and writes meanwhile (docs/architecture.md#performance-budgets).
 */
import { Worker } from 'node:worker_threads';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Task, TasksRecord } from '../../../shared/schemas';

const DEFLATE = { level: constants.Z_BEST_SPEED } as const;

/** Tasks ordered by scheduledAt (unknown last), then taskId (docs/api.md#delivery-tasks), whatever order they came in. */
function byScheduleThenId(a: Task, b: Task): number {
  const at = a.scheduledAt ?? '\uffff';
  const bt = b.scheduledAt ?? '\uffff';
  if (at !== bt) return at < bt ? -1 : 1;
  const ai = a.taskId ?? '';
  const bi = b.taskId ?? '';
  return ai < bi ? -1 : ai > bi ? 1 : 0;
}

/** The JSON text stored (deflated) for a tasks record. */
export function tasksText(tasks: TasksRecord): string {
  const sorted = (group: { tasks: Task[] }): Task[] => [...group.tasks].sort(byScheduleThenId);
  return JSON.stringify({
    ingest: { ...tasks.ingest, tasks: sorted(tasks.ingest) },
    normalize: { ...tasks.normalize, tasks: sorted(tasks.normalize) },
    process: { ...tasks.process, tasks: sorted(tasks.process) },
    dispatch: { ...tasks.dispatch, tasks: sorted(tasks.dispatch) },
  });
}

export function packTasks(tasks: TasksRecord): Uint8Array {
  return deflateRawSync(tasksText(tasks), DEFLATE);
}

export function unpackTasks(blob: Uint8Array): TasksRecord {
  return JSON.parse(inflateRawSync(blob).toString('utf8')) as TasksRecord;
}

/**
 * The worker's whole program: Node built-ins only, so it runs the same from sources, a bundle or the app.
 * A batch comes as one buffer of UTF-8 texts and their end offsets, and goes back the same way, packed:
 * both buffers are handed over (transferred), not copied.
 */
const WORKER = `
const { parentPort } = require('node:worker_threads');
const { deflateRawSync } = require('node:zlib');
const options = ${JSON.stringify(DEFLATE)};
parentPort.on('message', ({ bytes, ends }) => {
  const texts = Buffer.from(bytes);
  const blobs = [];
  let start = 0;
  let total = 0;
  for (const end of ends) {
    const blob = deflateRawSync(texts.subarray(start, end), options);
    blobs.push(blob);
    total += blob.length;
    start = end;
  }
  const packed = new Uint8Array(total);
  const packedEnds = [];
  let at = 0;
  for (const blob of blobs) {
    packed.set(blob, at);
    at += blob.length;
    packedEnds.push(at);
  }
  parentPort.postMessage({ bytes: packed.buffer, ends: packedEnds }, [packed.buffer]);
});
`;

interface Batch {
  bytes: ArrayBuffer;
  ends: number[];
}

/** Texts are sent about this many bytes at a time: one message per record would cost more than its deflate. */
const BATCH_BYTES = 512 * 1024;

/**
 * Packs tasks records on a worker thread: `add` hands a record over, `take` returns the packed ones done
 * so far, `drain` waits for the rest. Always `close` it (the worker never keeps the process alive).
 * Where no worker can start, records are packed on the spot.
 */
export class TasksPacker<K> {
  private worker: Worker | null | undefined;
  private keys: K[] = [];
  private ends: number[] = [];
  private buffer: Buffer | null = null;
  private used = 0;
  /** Keys of the batches sent, oldest first (the worker answers in order). */
  private readonly sent: K[][] = [];
  private done: [K, Uint8Array][] = [];
  private failure: Error | null = null;
  private waiting: (() => void) | null = null;

  add(key: K, tasks: TasksRecord): void {
    const text = tasksText(tasks);
    const worker = this.start();
    if (worker === null) {
      this.done.push([key, deflateRawSync(text, DEFLATE)]);
      return;
    }
    // At most 3 bytes of UTF-8 per UTF-16 unit.
    const room = text.length * 3;
    if (this.buffer !== null && this.used + room > this.buffer.length) this.send();
    // Its own memory (not the pool's), so it can be handed to the worker.
    this.buffer ??= Buffer.allocUnsafeSlow(Math.max(BATCH_BYTES, room));
    this.used += this.buffer.write(text, this.used, 'utf8');
    this.ends.push(this.used);
    this.keys.push(key);
    if (this.used >= BATCH_BYTES) this.send();
  }

  /** The records packed since the last call. */
  take(): [K, Uint8Array][] {
    if (this.failure) throw this.failure;
    const done = this.done;
    this.done = [];
    return done;
  }

  /** Resolves when every record added is packed (then `take` returns the last of them). */
  async drain(): Promise<void> {
    this.send();
    while (this.sent.length > 0 && !this.failure) {
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private start(): Worker | null {
    if (this.worker !== undefined) return this.worker;
    try {
      const worker = new Worker(WORKER, { eval: true });
      worker.unref();
      worker.on('message', ({ bytes, ends }: Batch) => {
        const keys = this.sent.shift()!;
        let start = 0;
        keys.forEach((key, i) => {
          this.done.push([key, new Uint8Array(bytes, start, ends[i]! - start)]);
          start = ends[i]!;
        });
        if (this.sent.length === 0) worker.unref();
        this.wake();
      });
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', (code) => {
        if (this.worker !== null) this.fail(new Error(`the tasks packer stopped (exit code ${code})`));
      });
      this.worker = worker;
    } catch {
      this.worker = null;
    }
    return this.worker;
  }

  private send(): void {
    const buffer = this.buffer;
    if (buffer === null || !this.worker) return;
    this.sent.push(this.keys);
    // Referenced while it has work, so a caller awaiting `drain` is not left behind by an exiting process.
    this.worker.ref();
    // The whole buffer (its own memory: see `add`) is handed over; the ends say how much of it is used.
    const bytes = buffer.buffer as ArrayBuffer;
    this.worker.postMessage({ bytes, ends: this.ends } satisfies Batch, [bytes]);
    this.keys = [];
    this.ends = [];
    this.buffer = null;
    this.used = 0;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }
}
