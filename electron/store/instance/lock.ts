/**
 * One writer per data directory (docs/decisions.md, "Beside a running instance"): sql.js keeps the
 * database in memory, so a second process saving the same file would silently overwrite the first one's
 * changes.
 * `serve` and the app hold `<dataDir>/dataset-health.lock`; a lock whose process is gone is taken over.
 * A lock file that cannot be read does not say whether its holder lives: it counts as held while it was
 * changed recently, and the holder rewrites it (docs/decisions.md "A damaged lock file").
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
  statSync,
  writeSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { writeFileAtomicSync } from './atomicFile';
import { readControlFile } from './controlFile';
import { INSTANCE_FILE_REFRESH_MS } from './instanceFile';

export const LOCK_FILE = 'dataset-health.lock';

/**
 * An unreadable lock file changed within this long counts as held: a live holder rewrites it within two
 * refreshes (longer only while its event loop is held up, e.g. by a large export), a dead one's stays
 * unreadable and is stale once this has passed.
 */
export const DAMAGED_LOCK_HELD_MS = 30_000;

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
  /**
   * Makes sure the lock file still names this holder, rewriting it when it was damaged (at its second
   * sighting), removed, or replaced by a dead process's record; a live process's record is left alone.
   * A timer calls it every `refreshMs`.
   */
  refresh(): void;
  /** Stops the refreshes and removes the lock file if it is still ours; calling it again does nothing. */
  release(): void;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: DataDirLockHolder,
    /** What the user can do, when not the usual. */
    advice = 'stop it first or use another --data-dir',
  ) {
    super(
      `the data directory ${dataDir} is in use by process ${holder.pid} (${holder.purpose}, started ${holder.startedAt}); ` +
        advice,
    );
    this.name = 'DataDirLockedError';
  }
}

/**
 * The lock file cannot be read, but its holder may be alive: the file changed recently (a live holder
 * rewrites it within seconds), or the instance control.json names is alive.
 */
export class DataDirLockDamagedError extends Error {
  constructor(
    readonly dataDir: string,
    /** How long until the file counts as stale, if nobody rewrites it; null: a live instance holds it. */
    readonly staleInSeconds: number | null,
    /** The live instance control.json names, if any. */
    readonly instance: { pid: number; purpose: string } | null = null,
  ) {
    super(
      instance !== null
        ? `the data directory ${dataDir} is in use by process ${instance.pid} (${instance.purpose}, as its ` +
            `control file says), whose lock file ${LOCK_FILE} is damaged; it rewrites it within seconds, so try ` +
            'again, or stop it first'
        : `the data directory ${dataDir} is in use by a process whose lock file ${LOCK_FILE} is damaged ` +
            '(it does not say which process); a running Dataset Health rewrites it within seconds, so try again. ' +
            `If no Dataset Health process runs, wait ${staleInSeconds ?? 0} s or remove ${join(dataDir, LOCK_FILE)}`,
    );
    this.name = 'DataDirLockDamagedError';
  }
}

export interface AcquireOptions {
  purpose: string;
  /** The holder's `startedAt`. */
  now?: () => Date;
  /** How often the holder checks its lock file (default INSTANCE_FILE_REFRESH_MS). */
  refreshMs?: number;
  /** What file change times are compared with: the real clock (default); tests move it on. */
  clock?: () => number;
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
  const clock = options.clock ?? Date.now;
  // Each pass either creates the file, throws, or removes a stale lock; a few passes cover races.
  for (let attempt = 0; attempt < 10; attempt++) {
    if (tryCreate(file, holder))
      return heldLock(dataDir, file, holder, options.refreshMs ?? INSTANCE_FILE_REFRESH_MS);
    const current = readHolderWithRetry(file);
    if (current === 'missing') continue;
    if (current === 'unreadable') {
      const damaged = damagedLockError(dataDir, clock);
      if (damaged) throw damaged;
    } else if (isHeld(file, current)) throw new DataDirLockedError(dataDir, current);
    removeStaleLock(file, current);
  }
  throw new Error(`could not take the lock ${file}: other processes keep changing it`);
}

/**
 * The live process holding `dataDir`; `damaged` when its lock file cannot be read but changed recently
 * (held by a process that does not say who it is); null when it is free (no lock file, or a stale one).
 */
export function readDataDirLock(
  dataDir: string,
  clock: () => number = Date.now,
): DataDirLockHolder | 'damaged' | null {
  const file = join(resolve(dataDir), LOCK_FILE);
  const current = readHolder(file);
  if (current === 'missing') return null;
  if (current === 'unreadable') return damagedLockError(dataDir, clock) ? 'damaged' : null;
  return isHeld(file, current) ? current : null;
}

/**
 * The error for an unreadable lock file whose holder may be alive, else null (it is stale, or gone): held
 * while the instance control.json names is alive (however long ago the file was damaged: an instance
 * stalled by a long export still holds the directory), else for DAMAGED_LOCK_HELD_MS from the file's
 * change time (ctime, which no tool sets back, unlike mtime; a clock set back counts as just changed).
 */
export function damagedLockError(
  dataDir: string,
  clock: () => number = Date.now,
): DataDirLockDamagedError | null {
  const info = statSync(join(resolve(dataDir), LOCK_FILE), { throwIfNoEntry: false });
  if (info === undefined) return null;
  const instance = readControlFile(dataDir);
  if (instance !== null && instance.pid !== process.pid && isProcessAlive(instance.pid))
    return new DataDirLockDamagedError(resolve(dataDir), null, instance);
  const age = Math.max(0, clock() - info.ctimeMs);
  if (age >= DAMAGED_LOCK_HELD_MS) return null;
  return new DataDirLockDamagedError(resolve(dataDir), Math.ceil((DAMAGED_LOCK_HELD_MS - age) / 1000));
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
  } catch (error) {
    // Not left empty (a full disk): an empty lock file would count as held for a while.
    closeSync(fd);
    rmSync(file, { force: true });
    throw error;
  }
  closeSync(fd);
  return true;
}

function heldLock(dataDir: string, file: string, holder: DataDirLockHolder, refreshMs: number): DataDirLock {
  heldHere.set(file, holder);
  let released = false;
  /** The unreadable file the last refresh saw, by inode, size and times. */
  let sighted: string | null = null;
  const refresh = (): void => {
    if (released) return;
    try {
      const current = readHolder(file);
      if (current === 'missing') {
        sighted = null;
        tryCreate(file, holder);
        return;
      }
      if (typeof current === 'object') {
        sighted = null;
        if (sameHolder(current, holder)) return;
        // Another live process took the lock (ours was removed under us): never fight over it.
        if (current.pid !== process.pid && isProcessAlive(current.pid)) return;
      } else {
        // Rewritten at the second sighting of the same damaged file, not the first: a process that has
        // just created the file (ours having been removed) writes its record into it right after.
        const seen = sighting(file);
        if (seen === null) return;
        if (seen !== sighted) {
          sighted = seen;
          return;
        }
        sighted = null;
      }
      // Replaced in one rename, never removed first: a process looking meanwhile would find no lock
      // file and take the directory.
      writeFileAtomicSync(file, (append) => append(`${JSON.stringify(holder)}\n`));
    } catch {
      // A file that cannot be read or written now (permissions, a full disk): tried again next time.
    }
  };
  const timer = setInterval(refresh, refreshMs);
  // The lock never keeps a process alive; release() stops it.
  timer.unref();
  return {
    dataDir,
    holder,
    refresh,
    release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      if (heldHere.get(file) === holder) heldHere.delete(file);
      const current = readHolder(file);
      if (typeof current === 'object' && sameHolder(current, holder)) rmSync(file, { force: true });
      // Ours, damaged since the last refresh: left behind, it would keep the next start out for a while.
      else if (current === 'unreadable') {
        try {
          removeStaleLock(file, 'unreadable');
        } catch {
          // Left for the next start to judge by its age.
        }
      }
    },
  };
}

function sighting(file: string): string | null {
  const info = statSync(file, { bigint: true, throwIfNoEntry: false });
  return info ? `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}` : null;
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
 * written by its owner this very moment; it is damaged only if it stays unreadable.
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
