import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  acquireDataDirLock,
  type DataDirLock,
  DataDirLockedError,
  LOCK_FILE,
  readDataDirLock,
} from '../../../electron/store/lock';

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
  rmSync(root, { recursive: true, force: true });
});

const lockFile = () => join(dir, LOCK_FILE);
const at = (iso: string) => () => new Date(iso);

function acquire(purpose: string, now?: () => Date): DataDirLock {
  const lock = acquireDataDirLock(dir, now ? { purpose, now } : { purpose });
  locks.push(lock);
  return lock;
}

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

  it('takes over a lock file that stays unreadable', () => {
    writeLockFile('');
    const lock = acquire('serve');
    expect(readDataDirLock(dir)).toEqual(lock.holder);
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

  it('leaves a lock that is no longer ours alone', () => {
    const lock = acquire('serve');
    const other = { pid: liveProcess(), purpose: 'app', startedAt: '2026-11-21T05:00:00.000Z' };
    writeLockFile(other);

    lock.release();

    expect(readDataDirLock(dir)).toEqual(other);
  });
});
