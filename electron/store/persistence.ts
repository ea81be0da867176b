/**
 * Durable files for the in-memory sql.js database (DESIGN.md §3). A write goes to a temp file in the
 * same folder and is fsynced; then the current file is hard-linked to `health.sqlite.bak` and the temp
 * file renamed over `health.sqlite`. Every step leaves a complete, readable `health.sqlite` in place,
 * so a kill at any instant loses at most the write in progress. At open, leftover temp files are
 * removed and an unusable main file is moved aside in favour of the backup.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, link, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isProcessAlive } from './lock';

export const DATABASE_FILE = 'health.sqlite';
export const BACKUP_FILE = `${DATABASE_FILE}.bak`;
const TEMP_PREFIX = `${DATABASE_FILE}.tmp-`;
/** Older than this, a temp file cannot belong to a write in progress, whoever its pid names. */
const ABANDONED_TEMP_MS = 10 * 60_000;

/** Tells this process's temp files from those of an earlier process that had the same pid. */
const PROCESS_TOKEN = randomBytes(4).toString('hex');
let tempCounter = 0;

export interface LoadedDatabase<T> {
  /** What `open` made of the file, or null to start empty. */
  opened: T | null;
  /** Which file `opened` came from. */
  source: 'main' | 'backup' | 'none';
  /** What was wrong and what was done about it, one line each, for the store's logger. */
  warnings: string[];
}

/** What opening a file's bytes gave: the opened database, or why the file cannot be used. */
export type OpenResult<T> = { opened: T } | { problem: string };

/**
 * Opens the database of `dataDir`: the main file when `open` accepts it, else the backup. Opening and
 * checking are one step, so a large file is held in memory once. An unusable file is renamed to
 * `<name>.corrupt-<timestamp>` so it is kept but never read again.
 */
export async function readDatabaseFile<T>(
  dataDir: string,
  open: (bytes: Uint8Array) => OpenResult<T>,
  now: () => Date = () => new Date(),
): Promise<LoadedDatabase<T>> {
  await removeLeftoverTempFiles(dataDir);
  const warnings: string[] = [];

  const main = await tryRead(join(dataDir, DATABASE_FILE), open, now);
  if (main.status === 'ok') return { opened: main.opened, source: 'main', warnings };
  if (main.status === 'unusable') {
    warnings.push(`the database file was unusable (${main.problem}); moved it to ${main.movedAside}`);
  }

  const backup = await tryRead(join(dataDir, BACKUP_FILE), open, now);
  if (backup.status === 'ok') {
    warnings.push(
      main.status === 'missing'
        ? `the database file was missing; opened the backup ${BACKUP_FILE}`
        : `opened the backup ${BACKUP_FILE}`,
    );
    return { opened: backup.opened, source: 'backup', warnings };
  }
  if (backup.status === 'unusable') {
    warnings.push(`the backup was unusable too (${backup.problem}); moved it to ${backup.movedAside}`);
  }
  if (main.status === 'unusable') warnings.push('started with an empty database: no usable backup');
  return { opened: null, source: 'none', warnings };
}

type ReadResult<T> =
  | { status: 'ok'; opened: T }
  | { status: 'missing' }
  | { status: 'unusable'; problem: string; movedAside: string };

async function tryRead<T>(
  file: string,
  open: (bytes: Uint8Array) => OpenResult<T>,
  now: () => Date,
): Promise<ReadResult<T>> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return { status: 'missing' };
    throw error;
  }
  const result = open(bytes);
  if ('opened' in result) return { status: 'ok', opened: result.opened };
  const { problem } = result;
  const movedAside = `${file}.corrupt-${now().toISOString().replace(/[:.]/g, '-')}-${randomBytes(2).toString('hex')}`;
  await rename(file, movedAside);
  return { status: 'unusable', problem, movedAside };
}

/**
 * Removes temp files left by a process killed mid-write. A temp file of a live process is kept (it
 * may be writing right now: two processes racing for the directory lock both open the folder) unless it is
 * too old to be a write in progress.
 */
async function removeLeftoverTempFiles(dataDir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dataDir);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return;
    throw error;
  }
  for (const name of names) {
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

/** Writes the database atomically; the file it replaces becomes `health.sqlite.bak`. */
export async function writeDatabaseFile(dataDir: string, bytes: Uint8Array): Promise<void> {
  const file = join(dataDir, DATABASE_FILE);
  const temp = join(dataDir, `${TEMP_PREFIX}${process.pid}-${PROCESS_TOKEN}-${tempCounter++}`);
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await keepBackup(file, join(dataDir, BACKUP_FILE));
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
  await syncDirectory(dataDir);
}

/** Makes `backup` a second name of the current `file` (a copy where hard links are unsupported). */
async function keepBackup(file: string, backup: string): Promise<void> {
  // Without a main file (first write, or after recovery) the backup is the only good copy: keep it.
  if (!(await exists(file))) return;
  await rm(backup, { force: true });
  try {
    await link(file, backup);
  } catch (error) {
    if (isErrno(error, 'EEXIST')) throw error;
    await copyFile(file, backup);
  }
}

async function syncDirectory(dir: string): Promise<void> {
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

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return false;
    throw error;
  }
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
