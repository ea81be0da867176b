/**
 * The files of a data directory's database (docs/storage.md) and the small file-system steps the journal,
 * the checkpoint and opening share: `health.sqlite` (the image), `health.sqlite.bak` (the image before
 * the last checkpoint), `health.sqlite.journal-<generation>` (changes since an image), and temp files
 * a checkpoint writes before its rename.
 */
import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isProcessAlive } from '../instance/lock';

export const DATABASE_FILE = 'health.sqlite';
export const BACKUP_FILE = `${DATABASE_FILE}.bak`;
const TEMP_PREFIX = `${DATABASE_FILE}.tmp-`;
/** Older than this, a temp file cannot belong to a write in progress, whoever its pid names. */
const ABANDONED_TEMP_MS = 10 * 60_000;

/** Tells this process's temp files from those of an earlier process that had the same pid. */
const PROCESS_TOKEN = randomBytes(4).toString('hex');
let tempCounter = 0;

/** A new temp file name in `dataDir`, recognisable as this process's by `removeLeftoverTempFiles`. */
export function tempFile(dataDir: string): string {
  return join(dataDir, `${TEMP_PREFIX}${process.pid}-${PROCESS_TOKEN}-${tempCounter++}`);
}

/**
 * Removes temp files left by a process killed mid-write. A temp file of a live process is kept (it
 * may be writing right now: two processes racing for the directory lock both open the folder) unless
 * it is too old to be a write in progress.
 */
export async function removeLeftoverTempFiles(dataDir: string): Promise<void> {
  for (const name of await listDir(dataDir)) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const file = join(dataDir, name);
    const [pidText, token] = name.slice(TEMP_PREFIX.length).split('-');
    const pid = Number(pidText);
    if (token === PROCESS_TOKEN) continue;
    const writerMayBeAlive = pid !== process.pid && isProcessAlive(pid);
    if (writerMayBeAlive) {
      const age = await stat(file).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age < ABANDONED_TEMP_MS) continue;
    }
    await rm(file, { force: true });
  }
}

/** The names in `dir`, or none when it does not exist. */
export async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return [];
    throw error;
  }
}

/** Renames an unusable file to `<name>.corrupt-<time>`, so it is kept but never read again. */
export async function moveAside(file: string, now: Date): Promise<string> {
  const movedAside = `${file}.corrupt-${now.toISOString().replace(/[:.]/g, '-')}-${randomBytes(2).toString('hex')}`;
  await rename(file, movedAside);
  return movedAside;
}

export async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Not every platform can fsync a directory (Windows); the rename is still atomic there.
  } finally {
    await handle?.close();
  }
}

export async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return false;
    throw error;
  }
}

export function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
