import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSqlJs, Store, type StoreOptions } from '../../../electron/store/database';
import { BACKUP_FILE, DATABASE_FILE } from '../../../electron/store/persistence';

let root: string;
let dir: string;
const stores: Store[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dh-persistence-'));
  dir = join(root, 'data');
});

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => {});
  rmSync(root, { recursive: true, force: true });
});

function recordingLog() {
  const warnings: string[] = [];
  const errors: string[] = [];
  return {
    warnings,
    errors,
    log: { warn: (m: string) => warnings.push(m), error: (m: string) => errors.push(m) },
  };
}

async function open(options: Partial<StoreOptions> = {}): Promise<Store> {
  const store = await Store.open({ dataDir: dir, debounceMs: 10_000, ...options });
  stores.push(store);
  return store;
}

/** Test data in a table of its own, so these tests do not depend on the product schema. */
function addNote(store: Store, text: string): void {
  store.run('CREATE TABLE IF NOT EXISTS note (text TEXT NOT NULL)');
  store.run('INSERT INTO note (text) VALUES (?)', [text]);
}

async function notesIn(file: string): Promise<string[]> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database(readFileSync(file));
  try {
    const hasNotes = db.exec("SELECT 1 FROM sqlite_master WHERE name = 'note'").length > 0;
    if (!hasNotes) return [];
    return db.exec('SELECT text FROM note ORDER BY rowid')[0]?.values.map((row) => String(row[0])) ?? [];
  } finally {
    db.close();
  }
}

const mainFile = () => join(dir, DATABASE_FILE);
const backupFile = () => join(dir, BACKUP_FILE);
const inode = (file: string) => statSync(file).ino;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A pid that no process has any more. */
function deadPid(): number {
  const pid = spawnSync(process.execPath, ['-e', '']).pid;
  if (pid === undefined) throw new Error('could not spawn a process');
  return pid;
}

/** main = [one, two], backup = [one]. */
async function writeTwoVersions(): Promise<void> {
  const store = await open();
  addNote(store, 'one');
  await store.flush();
  addNote(store, 'two');
  await store.close();
}

describe('writing', () => {
  it('replaces the file atomically, keeps the previous one as .bak, owner-only', async () => {
    await writeTwoVersions();

    expect(await notesIn(mainFile())).toEqual(['one', 'two']);
    expect(await notesIn(backupFile())).toEqual(['one']);
    expect(readdirSync(dir).sort()).toEqual([DATABASE_FILE, BACKUP_FILE]);
    expect(statSync(mainFile()).mode & 0o777).toBe(0o600);
    expect(statSync(backupFile()).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('flush puts every commit on disk: a second store on the folder reads it', async () => {
    const writer = await open();
    addNote(writer, 'flushed');
    await writer.flush();

    const reader = await open();
    expect(reader.column('SELECT text FROM note')).toEqual(['flushed']);
  });

  it('close writes what is pending', async () => {
    const writer = await open();
    addNote(writer, 'at close');
    await writer.close();

    expect(await notesIn(mainFile())).toEqual(['at close']);
  });

  it('debounces: commits within the window share one write, made after the window', async () => {
    const debounceMs = 150;
    const store = await open({ debounceMs });
    addNote(store, 'base');
    await store.flush();
    const baseInode = inode(mainFile());

    // Synchronous, so no timer can fire between the commits.
    const firstCommit = Date.now();
    for (let n = 0; n < 10; n++) {
      addNote(store, `n${n}`);
      sleepSync(5);
    }
    expect(inode(mainFile())).toBe(baseInode);

    await waitFor(() => inode(mainFile()) !== baseInode, 'the debounced write replaced the file');
    expect(Date.now() - firstCommit).toBeGreaterThanOrEqual(debounceMs - 5);
    await sleep(2 * debounceMs);

    // Each write links the file it replaces to .bak: one write since `base` leaves base's inode there.
    expect(inode(backupFile())).toBe(baseInode);
    expect(await notesIn(mainFile())).toEqual(['base', ...Array.from({ length: 10 }, (_, n) => `n${n}`)]);
  });

  it('a commit made while a write is in progress gets a write of its own', async () => {
    const store = await open({ debounceMs: 20 });
    // A few MB, so the write takes real time.
    store.run('CREATE TABLE ballast (payload BLOB)');
    store.transaction(() => {
      for (let n = 0; n < 40; n++) store.run('INSERT INTO ballast VALUES (randomblob(100000))');
    });
    await store.flush();

    addNote(store, 'first');
    const tempFile = () => readdirSync(dir).some((name) => name.startsWith(`${DATABASE_FILE}.tmp-`));
    await waitFor(tempFile, 'a write started');
    addNote(store, 'during the write');

    await waitFor(async () => (await notesIn(mainFile())).length === 2, 'the second write landed');
    expect(await notesIn(mainFile())).toEqual(['first', 'during the write']);
    expect(await notesIn(backupFile())).toEqual(['first']);
  });

  it('a failed save is logged, kept in memory and retried at the next flush and commit', async () => {
    const { log, errors } = recordingLog();
    const store = await open({ log, debounceMs: 20 });
    addNote(store, 'one');
    await store.flush();

    rmSync(dir, { recursive: true });
    addNote(store, 'two');
    await expect(store.flush()).rejects.toThrow(/ENOENT/);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/could not save the database .*kept in memory, will retry/);

    mkdirSync(dir);
    await store.flush();
    expect(await notesIn(mainFile())).toEqual(['one', 'two']);

    rmSync(dir, { recursive: true });
    addNote(store, 'three');
    await waitFor(() => errors.length === 2, 'the debounced save failed');
    mkdirSync(dir);
    addNote(store, 'four');
    await waitFor(() => existsSync(mainFile()), 'the next commit saved');
    expect(await notesIn(mainFile())).toEqual(['one', 'two', 'three', 'four']);
  });
});

describe('opening', () => {
  it('starts a new folder empty and quietly', async () => {
    const { log, warnings } = recordingLog();
    const store = await open({ log });
    expect(store.value('PRAGMA quick_check')).toBe('ok');
    await store.flush();
    expect(existsSync(mainFile())).toBe(true);
    expect(warnings).toEqual([]);
  });

  const corruptions: [string, (good: Buffer) => Buffer][] = [
    ['garbage bytes', () => Buffer.from('this is not a database, just some bytes '.repeat(200))],
    ['an empty file', () => Buffer.alloc(0)],
    ['a file cut after the header', (good) => good.subarray(0, 100)],
    ['a file cut in half', (good) => good.subarray(0, Math.floor(good.length / 2 / 4096) * 4096)],
    ['zeroed pages', (good) => Buffer.concat([good.subarray(0, 4096), Buffer.alloc(good.length - 4096)])],
  ];

  it.each(corruptions)('%s: moves the file aside, opens the backup and warns', async (_, corrupt) => {
    await writeTwoVersions();
    const bad = corrupt(readFileSync(mainFile()));
    writeFileSync(mainFile(), bad);

    const { log, warnings } = recordingLog();
    const store = await open({ log, debounceMs: 20 });

    expect(store.column('SELECT text FROM note')).toEqual(['one']);
    expect(store.value('PRAGMA quick_check')).toBe('ok');
    const aside = readdirSync(dir).filter((name) => name.startsWith(`${DATABASE_FILE}.corrupt-`));
    expect(aside).toHaveLength(1);
    // Buffer#equals: a deep toEqual over every byte is slow.
    expect(readFileSync(join(dir, aside[0] ?? '')).equals(bad)).toBe(true);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/database file was unusable \(.+\); moved it to .*health\.sqlite\.corrupt-/);
    expect(warnings[1]).toMatch(/opened the backup/);

    // The main file comes back without waiting for a change.
    await waitFor(() => existsSync(mainFile()), 'the main file was written again');
    expect(await notesIn(mainFile())).toEqual(['one']);
  });

  it('opens the backup when the main file is missing', async () => {
    await writeTwoVersions();
    rmSync(mainFile());

    const { log, warnings } = recordingLog();
    const store = await open({ log });

    expect(store.column('SELECT text FROM note')).toEqual(['one']);
    expect(warnings).toEqual([expect.stringMatching(/database file was missing; opened the backup/)]);
  });

  it('starts empty with a warning when there is no usable backup', async () => {
    await writeTwoVersions();
    writeFileSync(mainFile(), 'garbage');
    writeFileSync(backupFile(), 'more garbage');

    const { log, warnings } = recordingLog();
    const store = await open({ log });

    expect(store.value("SELECT count(*) FROM sqlite_master WHERE name = 'note'")).toBe(0);
    expect(warnings).toEqual([
      expect.stringMatching(/database file was unusable/),
      expect.stringMatching(/backup was unusable too/),
      expect.stringMatching(/started with an empty database: no usable backup/),
    ]);
    expect(readdirSync(dir).filter((name) => name.includes('.corrupt-'))).toHaveLength(2);
  });

  it('starts empty with a warning when the only file is corrupt', async () => {
    mkdirSync(dir);
    writeFileSync(mainFile(), 'garbage');

    const { log, warnings } = recordingLog();
    await open({ log });

    expect(warnings).toEqual([
      expect.stringMatching(/database file was unusable \(not a SQLite file\)/),
      expect.stringMatching(/started with an empty database/),
    ]);
  });

  it("removes temp files left by a killed writer, and keeps a live process's", async () => {
    await writeTwoVersions();
    const dead = deadPid();
    const leftovers = [`${DATABASE_FILE}.tmp-${dead}-0badf00d-3`, `${DATABASE_FILE}.tmp-${dead}`];
    for (const name of leftovers) writeFileSync(join(dir, name), 'half a database');
    const live = `${DATABASE_FILE}.tmp-${process.ppid}-cafebabe-0`;
    writeFileSync(join(dir, live), 'being written right now');

    const { log, warnings } = recordingLog();
    const store = await open({ log });

    expect(store.column('SELECT text FROM note')).toEqual(['one', 'two']);
    expect(readdirSync(dir).sort()).toEqual([DATABASE_FILE, BACKUP_FILE, live].sort());
    expect(warnings).toEqual([]);
  });
});
