/**
 * A checkpoint (docs/storage.md): the database as of one moment written as a new image, atomically (temp
 * file in the same folder, fsync, rename), the previous image kept as `health.sqlite.bak`.
 *
 * The pages come from the database in memory, a chunk at a time, through a snapshot (pageCapture.ts):
 * a page a later commit changes before the checkpoint reached it was copied first, so the image is
 * exactly the database at the moment the journals were switched, while commits go on meanwhile. So a
 * checkpoint costs one sequential write of the image, whatever the journals hold (their records may be
 * patches of a few bytes each: folding them onto a copy of the last image would read a page for each).
 *
 * Why not a worker thread: the writes run on libuv's thread pool already; the event loop only copies
 * a chunk of pages (a few MiB, about a millisecond) between two writes, so requests keep being
 * answered and committed while it runs (the benchmark shows the longest stall during a checkpoint).
 * A worker could not read the database in memory without a copy of it.
 */
import { copyFile, link, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { BACKUP_FILE, DATABASE_FILE, exists, isErrno, syncDirectory, tempFile } from './files';
import { writeImageSum } from './imageSum';
import { GEN_OFFSET } from './opening';

/** Pages are copied out of memory and written this many bytes at a time. */
const CHUNK_BYTES = 4 * 1024 * 1024;

export interface SnapshotSource {
  /** The database's size in pages at the snapshot's moment. */
  pages: number;
  pageSize: number;
  /** Copies `count` pages from page `from` (ascending, each once) as of that moment into `into`. */
  readPages(from: number, count: number, into: Uint8Array): void;
}

/** Writes the snapshot as the new image, stamped with `gen`, and swaps it in; returns its bytes. */
export async function writeSnapshot(dataDir: string, gen: number, source: SnapshotSource): Promise<number> {
  const { pages, pageSize } = source;
  const perChunk = Math.max(1, Math.floor(CHUNK_BYTES / pageSize));
  await writeNewImage(dataDir, gen, async (append) => {
    // One buffer, reused: each chunk is written before the next is read (a new one each time left
    // tens of MiB of them for the garbage collector at 10k datasets).
    const buffer = Buffer.allocUnsafe(Math.min(perChunk, pages) * pageSize);
    for (let from = 1; from <= pages; from += perChunk) {
      const count = Math.min(perChunk, pages - from + 1);
      const chunk = buffer.subarray(0, count * pageSize);
      source.readPages(from, count, chunk);
      await append(chunk);
    }
  });
  return pages * pageSize;
}

/** Writes `bytes` (a whole database) as the new image, stamped with `gen`, and swaps it in. */
export async function writeImage(dataDir: string, bytes: Uint8Array, gen: number): Promise<void> {
  await writeNewImage(dataDir, gen, (append) => append(bytes));
}

/**
 * The steps every new image takes: a temp file in the folder that `build` fills front to back (each
 * `append` is written after the last; the buffers are the checkpoint's own, so the first is stamped
 * with `gen` in place), summed as it is written, fsynced, swapped in, and its checksum written beside it.
 */
async function writeNewImage(
  dataDir: string,
  gen: number,
  build: (append: (bytes: Uint8Array) => Promise<void>) => Promise<void>,
): Promise<void> {
  const temp = tempFile(dataDir);
  let size = 0;
  let crc = 0;
  try {
    const target = await open(temp, 'wx', 0o600);
    try {
      await build(async (bytes) => {
        if (size === 0) new DataView(bytes.buffer, bytes.byteOffset, bytes.length).setUint32(GEN_OFFSET, gen);
        for (let written = 0; written < bytes.length;) {
          const { bytesWritten } = await target.write(bytes, written, bytes.length - written, size + written);
          written += bytesWritten;
        }
        crc = crc32(bytes, crc);
        size += bytes.length;
      });
      await target.sync();
    } finally {
      await target.close();
    }
    await swapIn(dataDir, temp);
    await writeImageSum(dataDir, { gen, size, crc });
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

/** The current image becomes the backup (a second name for it), and the temp file the image. */
async function swapIn(dataDir: string, temp: string): Promise<void> {
  const file = join(dataDir, DATABASE_FILE);
  const backup = join(dataDir, BACKUP_FILE);
  // Without a main file (first checkpoint, or opened from the backup) the backup stays as it is.
  if (await exists(file)) {
    await rm(backup, { force: true });
    try {
      await link(file, backup);
    } catch (error) {
      if (isErrno(error, 'EEXIST')) throw error;
      await copyFile(file, backup);
    }
  }
  await rename(temp, file);
  await syncDirectory(dataDir);
}
