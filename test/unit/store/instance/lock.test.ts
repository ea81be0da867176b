import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AcquireOptions,
  acquireDataDirLock,
  DAMAGED_LOCK_HELD_MS,
  type DataDirLock,
  DataDirLockDamagedError,
  DataDirLockedError,
  LOCK_FILE,
  readDataDirLock,
} from '../../../../electron/store/instance/lock';
import { writeControlFile } from '../../../../electron/store/instance/controlFile';
import { killChildren, spawnScript, until, waitFor } from '../../../helpers/process';

let root: string;
let dir: string;
const locks: DataDirLock[] = [];
const children: ChildProcess[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dh-lock-'));
  dir = join(root, 'data');
});

afterEach(() => {
  for (const lock of locks.splice(0)) lock.release();
  for (const child of children.splice(0)) child.kill('SIGKILL');
  killChildren();
  rmSync(root, { recursive: true, force: true });
});

const lockFile = () => join(dir, LOCK_FILE);
const at = (iso: string) => () => new Date(iso);

function acquire(purpose: string, now?: () => Date, options: Omit<AcquireOptions, 'purpose' | 'now'> = {}) {
  const lock = acquireDataDirLock(dir, { purpose, ...(now ? { now } : {}), ...options });
  locks.push(lock);
  return lock;
}

/** The real clock moved past the time an unreadable lock file counts as held. */
const later = () => Date.now() + DAMAGED_LOCK_HELD_MS + 1000;

const readLockFile = () => readFileSync(lockFile(), 'utf8');

function writeLockFile(holder: unknown): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(lockFile(), typeof holder === 'string' ? holder : JSON.stringify(holder));
}

/** A process that stays alive until the test ends. */
function liveProcess(): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  if (child.pid === undefined) throw new Error('could not spawn a process');
  return child.pid;
}

/** A pid that no process has any more. */
function deadPid(): number {
  const pid = spawnSync(process.execPath, ['-e', '']).pid;
  if (pid === undefined) throw new Error('could not spawn a process');
  return pid;
}

describe('acquireDataDirLock', () => {
  it('creates the folder and an owner-only lock file naming this process', () => {
    const lock = acquire('serve', at('2026-11-21T04:41:00.000Z'));

    const holder = { pid: process.pid, purpose: 'serve', startedAt: '2026-11-21T04:41:00.000Z' };
    expect(lock.holder).toEqual(holder);
    expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toEqual(holder);
    expect(statSync(lockFile()).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readDataDirLock(dir)).toEqual(holder);
  });

  it('refuses a second lock, naming the process that holds the folder', () => {
    acquire('serve', at('2026-11-21T04:41:00.000Z'));

    expect(() => acquire('import')).toThrow(DataDirLockedError);
    expect(() => acquire('import')).toThrow(
      `the data directory ${dir} is in use by process ${process.pid} (serve, started 2026-11-21T04:41:00.000Z); ` +
        'stop it first or use another --data-dir',
    );
  });

  it('refuses a folder another live process holds', () => {
    const pid = liveProcess();
    const holder = { pid, purpose: 'app', startedAt: '2026-11-20T08:00:00.000Z' };
    writeLockFile(holder);

    let error: unknown;
    try {
      acquire('keys');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DataDirLockedError);
    expect((error as DataDirLockedError).holder).toEqual(holder);
    expect((error as Error).message).toContain(
      `in use by process ${pid} (app, started 2026-11-20T08:00:00.000Z)`,
    );
    expect(readDataDirLock(dir)).toEqual(holder);
  });

  it('takes over a stale lock whose process has exited', () => {
    writeLockFile({ pid: deadPid(), purpose: 'serve', startedAt: '2026-11-20T08:00:00.000Z' });
    expect(readDataDirLock(dir)).toBeNull();

    const lock = acquire('serve');

    expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toEqual(lock.holder);
    expect(lock.holder.pid).toBe(process.pid);
  });

  it('takes over a lock naming this pid from an earlier process (pids are reused after a restart)', () => {
    writeLockFile({ pid: process.pid, purpose: 'serve', startedAt: '2026-01-01T00:00:00.000Z' });
    expect(readDataDirLock(dir)).toBeNull();

    const lock = acquire('serve');
    expect(readDataDirLock(dir)).toEqual(lock.holder);
  });

  it('an unreadable lock file is held while it is recent (its holder may rewrite it), stale once old', () => {
    writeLockFile('{"pid": 12');

    expect(readDataDirLock(dir)).toBe('damaged');
    expect(() => acquire('import')).toThrow(DataDirLockDamagedError);
    expect(() => acquire('import')).toThrow(
      new RegExp(
        `^the data directory ${dir} is in use by a process whose lock file dataset-health.lock is damaged ` +
          `\\(it does not say which process\\); a running Dataset Health rewrites it within seconds, so try again\\. ` +
          `If no Dataset Health process runs, wait \\d+ s or remove ${lockFile()}$`,
      ),
    );
    expect(readLockFile()).toBe('{"pid": 12');

    expect(readDataDirLock(dir, later)).toBeNull();
    const lock = acquire('serve', undefined, { clock: later });
    expect(readDataDirLock(dir)).toEqual(lock.holder);
  });

  it('an unreadable lock file stays held, however old, while the instance control.json names lives', () => {
    writeLockFile('{"pid": 12');
    // Our parent (the test runner) stands for a live serve stalled by a long export.
    const control = { url: 'http://127.0.0.1:9', pid: process.ppid, purpose: 'serve', secret: 's' };
    writeControlFile(dir, control);
    expect(readDataDirLock(dir, later)).toBe('damaged');
    expect(() => acquire('import', undefined, { clock: later })).toThrow(
      `the data directory ${dir} is in use by process ${process.ppid} (serve, as its control file says), whose lock file dataset-health.lock is damaged; it rewrites it within seconds, so try again, or stop it first`,
    );
    expect(readLockFile()).toBe('{"pid": 12');
    // Once that process is gone, the old damage is stale.
    writeControlFile(dir, { ...control, pid: deadPid() });
    expect(readDataDirLock(dir, later)).toBeNull();
  });

  it("a live holder's damaged lock file is not taken over; the holder rewrites it, and its timer keeps no process alive", async () => {
    const holderProcess = spawnScript('test/helpers/lock-holder.ts', [dir, '50'], {}, { stdin: 'pipe' });
    const line = await waitFor(holderProcess.stdout, /^(\{.*\})\n/, holderProcess);
    const holder = JSON.parse(line[1]!) as unknown;
    writeFileSync(lockFile(), 'garbage from an editor');

    // Whatever the holder does meanwhile, the lock is never taken from it: refused as damaged, or
    // (once rewritten) as held by the holder by name.
    expect(() => acquire('import')).toThrow(/is in use by/);
    await until(
      () => JSON.stringify(readDataDirLock(dir)) === JSON.stringify(holder),
      'the holder rewrote its lock',
    );
    expect(JSON.parse(readLockFile())).toEqual(holder);
    expect(() => acquire('import')).toThrow(DataDirLockedError);

    // Nothing but its stdin kept the holder alive: the refresh timer does not.
    holderProcess.child.stdin!.end();
    expect(await holderProcess.exited, holderProcess.stderr()).toBe(0);
  });
});

describe('refresh', () => {
  const HOUR = 3_600_000;

  it('rewrites a damaged lock file at its second look (the first may be a record being written)', () => {
    const lock = acquire('serve', undefined, { refreshMs: HOUR });
    writeLockFile('');

    lock.refresh();
    expect(readLockFile()).toBe('');
    lock.refresh();
    expect(JSON.parse(readLockFile())).toEqual(lock.holder);
    expect(readDataDirLock(dir)).toEqual(lock.holder);
  });

  it('puts back a removed lock file and replaces a dead process’s record, but leaves a live one’s alone', () => {
    const lock = acquire('serve', undefined, { refreshMs: HOUR });
    rmSync(lockFile());
    lock.refresh();
    expect(readDataDirLock(dir)).toEqual(lock.holder);

    writeLockFile({ pid: deadPid(), purpose: 'serve', startedAt: '2026-11-20T08:00:00.000Z' });
    lock.refresh();
    expect(readDataDirLock(dir)).toEqual(lock.holder);

    const other = { pid: liveProcess(), purpose: 'app', startedAt: '2026-11-21T05:00:00.000Z' };
    writeLockFile(other);
    lock.refresh();
    expect(readDataDirLock(dir)).toEqual(other);
  });

  it('runs on its timer while held, and not after release', async () => {
    const lock = acquire('serve', undefined, { refreshMs: 5 });
    writeLockFile('damaged');
    await until(() => readLockFile() !== 'damaged', 'the timer rewrote the lock file');
    expect(JSON.parse(readLockFile())).toEqual(lock.holder);

    lock.release();
    writeLockFile('damaged');
    // Many periods later, nothing has touched it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(readLockFile()).toBe('damaged');
  });
});

describe('release', () => {
  it('removes the lock, so the folder can be taken again', () => {
    const first = acquire('demo');
    first.release();
    first.release();

    expect(existsSync(lockFile())).toBe(false);
    expect(readDataDirLock(dir)).toBeNull();
    expect(acquire('serve').holder.purpose).toBe('serve');
  });

  it('removes its own lock file damaged since the last refresh (else the next start would wait for it)', () => {
    const lock = acquire('serve');
    writeLockFile('');

    lock.release();

    expect(existsSync(lockFile())).toBe(false);
  });

  it('leaves a lock that is no longer ours alone', () => {
    const lock = acquire('serve');
    const other = { pid: liveProcess(), purpose: 'app', startedAt: '2026-11-21T05:00:00.000Z' };
    writeLockFile(other);

    lock.release();

    expect(readDataDirLock(dir)).toEqual(other);
  });
});
