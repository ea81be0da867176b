/**
 * A temp file that holds a sync cycle's changed records past the in-memory bound (see changes.ts), one
 * JSON text a line, until the cycle's commit reads them back. Created owner-only under a name that
 * carries the process id, so a file left by a killed process can be told from one in use and removed.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

const NAME_PREFIX = 'dataset-health-changes-';
const LEFTOVER = /^dataset-health-changes-(\d+)-[0-9a-f-]{36}\.ndjson$/;
/** Read back a MiB at a time: each read is one batch of records, so reading never holds more. */
const READ_BYTES = 1 << 20;
const NEWLINE = 0x0a;

export class SpoolFile {
  private writer: FileHandle | undefined;

  private constructor(
    readonly path: string,
    writer: FileHandle,
  ) {
    this.writer = writer;
  }

  static async create(dir: string): Promise<SpoolFile> {
    const path = join(dir, `${NAME_PREFIX}${process.pid}-${randomUUID()}.ndjson`);
    // 'wx': never an existing file (or a link someone planted in a shared temp folder).
    return new SpoolFile(path, await open(path, 'wx', 0o600));
  }

  /** Appends lines (each ends with a newline), in UTF-8. */
  async append(lines: readonly Uint8Array[]): Promise<void> {
    if (!this.writer) throw new Error(`${this.path} is closed for writing`);
    await this.writer.writev(lines);
  }

  /** The lines written, in order, in batches of about READ_BYTES. Writing ends here. */
  async *lines(): AsyncGenerator<string[]> {
    await this.closeWriter();
    // The start of a line that runs past the reads so far: joined once its end arrives, so a record
    // larger than many reads costs one copy, not one per read.
    let head: Buffer[] = [];
    const chunks = createReadStream(this.path, { highWaterMark: READ_BYTES }) as AsyncIterable<Buffer>;
    // The stream's iterator destroys the stream when the loop is left early (a failed or aborted commit).
    for await (const chunk of chunks) {
      const batch: string[] = [];
      let start = 0;
      // A newline byte never occurs inside a UTF-8 sequence: splitting the bytes is safe.
      for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
        const tail = chunk.subarray(start, end);
        batch.push((head.length > 0 ? Buffer.concat([...head, tail]) : tail).toString('utf8'));
        head = [];
        start = end + 1;
      }
      if (start < chunk.length) head.push(chunk.subarray(start));
      if (batch.length > 0) yield batch;
    }
    if (head.length > 0) throw new Error(`${this.path} ends in the middle of a record`);
  }

  async remove(): Promise<void> {
    await this.closeWriter().catch(() => {});
    await rm(this.path, { force: true });
  }

  private async closeWriter(): Promise<void> {
    const writer = this.writer;
    this.writer = undefined;
    await writer?.close();
  }
}

/**
 * Removes the spool files of processes that no longer run (killed in the middle of a cycle). This
 * process's own are in use by another source's cycle; a live process's are its own business.
 */
export async function removeLeftoverSpools(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  const stale = names.filter((name) => {
    const pid = Number(LEFTOVER.exec(name)?.[1] ?? 0);
    return pid > 0 && pid !== process.pid && !isRunning(pid);
  });
  await Promise.all(stale.map((name) => rm(join(dir, name), { force: true }).catch(() => {})));
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
