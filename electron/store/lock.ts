/**
 * One writer per data directory (DESIGN.md §3): sql.js keeps the database in memory, so a second
 * process saving the same file would silently overwrite the first one's changes. `serve` and the app
 * hold `<dataDir>/dataset-health.lock`; a lock whose process is gone is taken over.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join, resolve } from 'node:path';

export const LOCK_FILE = 'dataset-health.lock';

/** Locks this process holds, by lock file: a lock naming our pid but not listed here is from an earlier
 * process that had the same pid (containers restart with the same small pids). */
const heldHere = new Map<string, DataDirLockHolder>();

/** What the lock file says about its holder. */
export interface DataDirLockHolder {
  pid: number;
  /** What the holder is doing, in a word: `serve`, `app`, `import`. */
  purpose: string;
  /** ISO 8601. */
  startedAt: string;
}

export interface DataDirLock {
  readonly dataDir: string;
  readonly holder: DataDirLockHolder;
  /** Removes the lock file if it is still ours; calling it again does nothing. */
  release(): void;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: DataDirLockHolder,
  ) {
    super(
      `the data directory ${dataDir} is in use by process ${holder.pid} (${holder.purpose}, started ${holder.startedAt}); ` +
        'stop it first or use another --data-dir',
    );
    this.name = 'DataDirLockedError';
  }
}

export interface AcquireOptions {
  purpose: string;
  now?: () => Date;
}

/** Takes the data directory for this process, or throws `DataDirLockedError` naming the live holder. */
export function acquireDataDirLock(directory: string, options: AcquireOptions): DataDirLock {
  const dataDir = resolve(directory);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, LOCK_FILE);
  const holder: DataDirLockHolder = {
    pid: process.pid,
    purpose: options.purpose,
    startedAt: (options.now ?? (() => new Date()))().toISOString(),
  };
  // Each pass either creates the file, throws, or removes a stale lock; a few passes cover races.
  for (let attempt = 0; attempt < 10; attempt++) {
    if (tryCreate(file, holder)) return heldLock(dataDir, file, holder);
    const current = readHolderWithRetry(file);
    if (current === 'missing') continue;
    if (current !== 'unreadable' && isHeld(file, current)) throw new DataDirLockedError(dataDir, current);
    removeStaleLock(file, current);
  }
  throw new Error(`could not take the lock ${file}: other processes keep changing it`);
}

/** The live process holding `dataDir`, or null when it is free (no lock file, or a stale one). */
export function readDataDirLock(dataDir: string): DataDirLockHolder | null {
  const file = join(resolve(dataDir), LOCK_FILE);
  const current = readHolder(file);
  if (current === 'missing' || current === 'unreadable') return null;
  return isHeld(file, current) ? current : null;
}

/** True when a process with this pid exists (also when it belongs to another user). */
export function isProcessAlive(pid: number): boolean {
  // kill(0) and negative pids address process groups: never a lock holder.
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isHeld(file: string, holder: DataDirLockHolder): boolean {
  if (holder.pid !== process.pid) return isProcessAlive(holder.pid);
  const ours = heldHere.get(file);
  return ours !== undefined && sameHolder(ours, holder);
}

function tryCreate(file: string, holder: DataDirLockHolder): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify(holder)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function heldLock(dataDir: string, file: string, holder: DataDirLockHolder): DataDirLock {
  heldHere.set(file, holder);
  let released = false;
  return {
    dataDir,
    holder,
    release() {
      if (released) return;
      released = true;
      if (heldHere.get(file) === holder) heldHere.delete(file);
      const current = readHolder(file);
      if (typeof current === 'object' && sameHolder(current, holder)) rmSync(file, { force: true });
    },
  };
}

type ReadHolder = DataDirLockHolder | 'missing' | 'unreadable';

function readHolder(file: string): ReadHolder {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const value: unknown = JSON.parse(text);
    if (isHolder(value)) return value;
  } catch {
    // Fall through: empty or half-written.
  }
  return 'unreadable';
}

/**
 * A lock file is created empty and written right after, so an unreadable one is usually being
 * written by its owner this very moment; it is stale only if it stays unreadable.
 */
function readHolderWithRetry(file: string): ReadHolder {
  for (let waited = 0; ; waited += 20) {
    const current = readHolder(file);
    if (current !== 'unreadable' || waited >= 500) return current;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
}

/**
 * Removes a lock whose holder is gone. Renaming it aside first and checking what was renamed keeps
 * two processes that both saw the stale lock from removing the fresh lock one of them just took.
 */
function removeStaleLock(file: string, stale: DataDirLockHolder | 'unreadable'): void {
  const aside = `${file}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = readHolder(aside);
  const wasTheStaleLock =
    stale === 'unreadable' ? moved === 'unreadable' : typeof moved === 'object' && sameHolder(moved, stale);
  if (!wasTheStaleLock) {
    // Someone took the lock between our read and the rename: put theirs back (a link, so that a
    // lock yet another process created meanwhile is not replaced) and go round again.
    try {
      linkSync(aside, file);
    } catch {
      // Another process created a lock meanwhile: theirs stands.
    }
  }
  rmSync(aside, { force: true });
}

function sameHolder(a: DataDirLockHolder, b: DataDirLockHolder): boolean {
  return a.pid === b.pid && a.startedAt === b.startedAt && a.purpose === b.purpose;
}

function isHolder(value: unknown): value is DataDirLockHolder {
  if (typeof value !== 'object' || value === null) return false;
  const { pid, purpose, startedAt } = value as Record<string, unknown>;
  return typeof pid === 'number' && typeof purpose === 'string' && typeof startedAt === 'string';
}
