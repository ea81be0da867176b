/**
 * Work of opening a large data directory done on a worker thread while the main thread replays its
 * journal (docs/storage.md "Opening"): the image's checksum, and the inflating of deflated journal
 * records. At 100k datasets a full journal took 2 s to open on one thread, a quarter of it summing the
 * image and another quarter inflating; on a second core both overlap the replay itself.
 *
 * The worker's program uses Node built-ins only, so it runs the same from sources, a bundle or the app
 * (as the tasks packer's does, schema/tasksBlob.ts). Batches go over and back as whole buffers, handed
 * over (transferred), not copied.
 */
import { Worker } from 'node:worker_threads';

/** The image is summed this many bytes at a time: one buffer, reused. */
export const SUM_CHUNK_BYTES = 8 * 1024 * 1024;

const PROGRAM = `
const { parentPort } = require('node:worker_threads');
const { readSync } = require('node:fs');
const { crc32, inflateRawSync } = require('node:zlib');
function sum({ fd, size }) {
  const buffer = Buffer.allocUnsafe(Math.min(${SUM_CHUNK_BYTES}, Math.max(1, size)));
  let crc = 0;
  for (let at = 0; at < size;) {
    const read = readSync(fd, buffer, 0, Math.min(buffer.length, size - at), at);
    if (read === 0) return { crc: null };
    crc = crc32(buffer.subarray(0, read), crc);
    at += read;
  }
  return { crc };
}
function inflate({ input, spans, prefix }) {
  const bytes = Buffer.from(input);
  let total = 0;
  for (let i = 2; i < spans.length; i += 3) total += prefix + spans[i];
  const output = new Uint8Array(total);
  const inflated = new Uint8Array(spans.length / 3);
  for (let i = 0, at = 0; i < spans.length; i += 3) {
    const size = spans[i + 2];
    try {
      const payload = inflateRawSync(bytes.subarray(spans[i], spans[i + 1]), { maxOutputLength: Math.max(1, size) });
      if (payload.length === size) {
        output.set(payload, at + prefix);
        inflated[i / 3] = 1;
      }
    } catch {}
    at += prefix + size;
  }
  return { answer: { output: output.buffer, inflated }, transfer: [output.buffer] };
}
parentPort.on('message', (job) => {
  try {
    if (job.kind === 'sum') parentPort.postMessage({ id: job.id, answer: sum(job) });
    else {
      const { answer, transfer } = inflate(job);
      parentPort.postMessage({ id: job.id, answer }, transfer);
    }
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: String(error) });
  }
});
`;

/** Records inflated on the worker: each one's bytes, `prefix` bytes into its slot of `output`. */
export interface Inflated {
  /** The slots, one after the other: `prefix` bytes left for the caller, then the inflated bytes. */
  output: Buffer;
  /** 1 where the record inflated to exactly its size, 0 where it did not (not deflate data, or another size). */
  inflated: Uint8Array;
}

interface Reply {
  id: number;
  answer?: unknown;
  error?: string;
}

/** A worker thread for opening's heavy, self-contained work. Always `close` it. */
export class OffThread {
  private nextId = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (answer: unknown) => void; reject: (e: Error) => void }
  >();
  private failure: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.unref();
    worker.on('message', ({ id, answer, error }: Reply) => {
      const waiter = this.waiting.get(id);
      this.waiting.delete(id);
      if (error !== undefined) waiter?.reject(new Error(error));
      else waiter?.resolve(answer);
      if (this.waiting.size === 0) worker.unref();
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`the worker stopped (exit code ${code})`)));
  }

  /** A started worker, or null where none can start (the caller then does the work itself). */
  static start(): OffThread | null {
    try {
      return new OffThread(new Worker(PROGRAM, { eval: true }));
    } catch {
      return null;
    }
  }

  /** The CRC-32 of the first `size` bytes of the open file `fd`; null when the file is shorter. */
  async sum(fd: number, size: number): Promise<number | null> {
    const { crc } = (await this.ask({ kind: 'sum', fd, size })) as { crc: number | null };
    return crc;
  }

  /**
   * Inflates the deflated runs of `input` (taken over: its memory is handed to the worker) that `spans`
   * lists, three numbers each: start, end, and the size it must inflate to.
   */
  async inflate(input: Buffer, spans: number[], prefix: number): Promise<Inflated> {
    // The whole of the buffer's memory goes: it must be the buffer's own (Buffer.allocUnsafeSlow).
    if (input.byteOffset !== 0 || input.byteLength !== input.buffer.byteLength)
      throw new Error('OffThread.inflate needs a buffer with memory of its own');
    const bytes = input.buffer as ArrayBuffer;
    const answer = (await this.ask({ kind: 'inflate', input: bytes, spans, prefix }, [bytes])) as {
      output: ArrayBuffer;
      inflated: Uint8Array;
    };
    return { output: Buffer.from(answer.output), inflated: answer.inflated };
  }

  async close(): Promise<void> {
    this.failure ??= new Error('closed');
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }

  private ask(job: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      // Referenced while it has work, so an open awaiting it is not left behind by an exiting process.
      this.worker.ref();
      this.worker.postMessage({ ...job, id }, transfer);
    });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}
