/**
 * A checkpoint (DESIGN.md §3): a new image made from the last image and the journals that follow it,
 * written atomically (temp file in the same folder, fsync, rename), the previous image kept as
 * `health.sqlite.bak`.
 *
 * Why not a worker thread: every byte of it is file I/O (a copy of the image, then the journals'
 * pages written over it at their offsets), which Node already runs on libuv's thread pool; the event
 * loop only checks each journal record's checksum and hands the pages on, a record at a time (records
 * are at most a few MiB). The in-memory database is never read, so requests keep being answered and
 * committed while it runs, and memory does not grow with the database (the benchmark shows the longest
 * stall during a checkpoint). A worker would need its own bundle entry and would copy the same pages.
 */
import { type FileHandle, copyFile, link, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { BACKUP_FILE, DATABASE_FILE, exists, isErrno, syncDirectory, tempFile } from './files';
import { type JournalHeader, type Page, applyJournal, measureJournal } from './journalFile';
import { fileCrc, writeImageSum } from './imageSum';
import { GEN_OFFSET } from './persistence';

export interface CheckpointJournal {
  file: string;
  header: JournalHeader;
}

export interface CheckpointInput {
  dataDir: string;
  /** The image the journals follow (the main file, or the backup when the main one was unusable); null: none. */
  imageFile: string | null;
  /** The journals to apply, in order; each continues the previous one. */
  journals: CheckpointJournal[];
  /** Stamped into the new image: the generation of the journal that continues after these. */
  newGen: number;
  pageSize: number;
}

export interface CheckpointResult {
  /** Bytes of the new image. */
  imageBytes: number;
  /** Journal bytes applied. */
  appliedBytes: number;
}

/** Writes the new image and swaps it in; on failure nothing but a temp file changed (and it is removed). */
export async function writeCheckpoint(input: CheckpointInput): Promise<CheckpointResult> {
  const { pageSize } = input;
  let imageBytes = 0;
  let appliedBytes = 0;
  await writeNewImage(input.dataDir, input.newGen, input.imageFile, async (target) => {
    let dbPages = input.imageFile ? Math.ceil((await target.stat()).size / pageSize) : 0;
    for (const journal of input.journals) {
      const source = await open(journal.file, 'r');
      try {
        const { size } = await source.stat();
        const extent = await measureJournal(source, journal.header, size);
        if (extent.dbPages > 0) dbPages = extent.dbPages;
        appliedBytes += extent.committedLength;
        await applyJournal(source, journal.header, extent.committedLength, (pages) =>
          writePages(target, pages, pageSize),
        );
      } finally {
        await source.close();
      }
    }
    imageBytes = dbPages * pageSize;
    await target.truncate(imageBytes);
  });
  return { imageBytes, appliedBytes };
}

/** Writes `bytes` (a whole database) as the new image, stamped with `gen`, and swaps it in. */
export async function writeImage(dataDir: string, bytes: Uint8Array, gen: number): Promise<void> {
  await writeNewImage(dataDir, gen, null, async (target) => {
    await target.write(bytes, 0, bytes.length, 0);
  });
}

/**
 * The steps every new image takes: a temp file in the folder (a copy of `copyOf`, or empty) that
 * `build` fills, stamped with `gen`, fsynced, swapped in, and its checksum written beside it.
 */
async function writeNewImage(
  dataDir: string,
  gen: number,
  copyOf: string | null,
  build: (target: FileHandle) => Promise<void>,
): Promise<void> {
  const temp = tempFile(dataDir);
  try {
    if (copyOf) await copyFile(copyOf, temp);
    const target = await open(temp, copyOf ? 'r+' : 'wx', 0o600);
    try {
      await build(target);
      const stamp = Buffer.alloc(4);
      stamp.writeUInt32BE(gen);
      await target.write(stamp, 0, 4, GEN_OFFSET);
      await target.sync();
    } finally {
      await target.close();
    }
    const { size, crc } = await fileCrc(temp);
    await swapIn(dataDir, temp);
    await writeImageSum(dataDir, { gen, size, crc });
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

/** Writes a record's pages (sorted by number) with one write per run of consecutive pages. */
async function writePages(target: FileHandle, pages: Page[], pageSize: number): Promise<void> {
  let run: Page[] = [];
  const flush = async (): Promise<void> => {
    if (run.length === 0) return;
    const bytes = run.length === 1 ? run[0]!.bytes : Buffer.concat(run.map((page) => page.bytes));
    await target.write(bytes, 0, bytes.length, (run[0]!.pgno - 1) * pageSize);
    run = [];
  };
  for (const page of pages) {
    if (run.length > 0 && page.pgno !== run[run.length - 1]!.pgno + 1) await flush();
    run.push(page);
  }
  await flush();
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
