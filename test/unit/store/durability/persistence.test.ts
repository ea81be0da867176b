import { spawnSync } from 'node:child_process';
import { open as openFile } from 'node:fs/promises';
import {
  cpSync,
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
import { loadSqlJs, Store, type StoreOptions } from '../../../../electron/store/database';
import { BACKUP_FILE, DATABASE_FILE } from '../../../../electron/store/durability/files';
import type { OpenJournalFile } from '../../../../electron/store/durability/journal';
import { checkpointThreshold } from '../../../../electron/store/durability/writer';
import { SUM_FILE } from '../../../../electron/store/durability/imageSum';

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

/** Checkpoints that opening calls for start at once here (the app waits a few seconds: see below). */
async function open(options: Partial<StoreOptions> = {}): Promise<Store> {
  const store = await Store.open({
    dataDir: dir,
    debounceMs: 10_000,
    ...options,
    checkpoint: { openCheckpointDelayMs: 0, ...options.checkpoint },
  });
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

const journals = (): string[] =>
  readdirSync(dir)
    .filter((name) => name.startsWith(`${DATABASE_FILE}.journal-`))
    .sort();
const journalBytes = (): number => journals().reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);

/** main = [one, two], backup = [one]: two checkpoints. */
async function writeTwoVersions(): Promise<void> {
  const store = await open();
  addNote(store, 'one');
  await store.persistence?.checkpoint();
  addNote(store, 'two');
  await store.persistence?.checkpoint();
  await store.close();
}

/** The folder as a restart after a kill now would find it: a copy, opened by a second store. */
async function reopenedCopy(): Promise<Store> {
  const copy = join(root, `copy-${stores.length}`);
  cpSync(dir, copy, { recursive: true });
  const reader = await Store.open({ dataDir: copy, debounceMs: 10_000 });
  stores.push(reader);
  return reader;
}

async function reopenedNotes(): Promise<string[]> {
  return (await reopenedCopy()).column<string>('SELECT text FROM note ORDER BY rowid');
}

describe('writing', () => {
  it('a commit goes to the journal, not the image; a second store reads image + journal', async () => {
    const store = await open();
    addNote(store, 'flushed');
    await store.flush();

    expect(existsSync(mainFile())).toBe(false);
    expect(journals()).toHaveLength(1);
    expect(statSync(join(dir, journals()[0]!)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(await reopenedNotes()).toEqual(['flushed']);
  });

  it('a small change costs its pages, not the database', async () => {
    const store = await open();
    store.run('CREATE TABLE ballast (payload BLOB)');
    store.transaction(() => {
      for (let n = 0; n < 40; n++) store.run('INSERT INTO ballast VALUES (randomblob(100000))');
    });
    await store.persistence?.checkpoint();
    const imageInode = inode(mainFile());
    const before = journalBytes();

    addNote(store, 'small');
    await store.flush();

    const grown = journalBytes() - before;
    expect(grown).toBeGreaterThan(0);
    // A few 8 KiB pages (the table, its root, the schema page), against a 4 MB image.
    expect(grown).toBeLessThan(64 * 1024);
    expect(inode(mainFile())).toBe(imageInode);
    expect(await reopenedNotes()).toEqual(['small']);
  });

  it('an updated row is journaled as the bytes that changed, not its pages', async () => {
    const store = await open();
    store.run('CREATE TABLE item (id INTEGER PRIMARY KEY, status TEXT NOT NULL, body TEXT NOT NULL)');
    store.run('CREATE INDEX item_status ON item (status, id)');
    store.transaction(() => {
      for (let id = 0; id < 2000; id++)
        store.run("INSERT INTO item VALUES (?, 'HEALTHY', ?)", [id, `${id}`.repeat(40)]);
    });
    await store.flush();
    const before = { bytes: journalBytes(), pages: store.persistence!.stats.pages };

    store.run("UPDATE item SET status = 'FAILED' WHERE id IN (7, 1500)");
    await store.flush();

    // Page 1, two table leaves and the index pages the entries moved between: whole, they would be
    // 8 KiB each.
    const pages = store.persistence!.stats.pages - before.pages;
    expect(pages).toBeGreaterThanOrEqual(4);
    expect(journalBytes() - before.bytes).toBeLessThan(2048);
    const reopened = await reopenedCopy();
    expect(reopened.column<number>("SELECT id FROM item WHERE status = 'FAILED' ORDER BY id")).toEqual([
      7, 1500,
    ]);
    expect(reopened.value('PRAGMA quick_check')).toBe('ok');
  });

  it('a commit of many small changes is stored deflated, and replays exactly', async () => {
    const store = await open();
    store.run('CREATE TABLE item (id INTEGER PRIMARY KEY, status TEXT NOT NULL, body TEXT NOT NULL)');
    store.run('CREATE INDEX item_status ON item (status, id)');
    store.transaction(() => {
      for (let id = 0; id < 4000; id++)
        store.run("INSERT INTO item VALUES (?, 'HEALTHY', ?)", [id, `dataset-${id}-`.repeat(8)]);
    });
    await store.flush();
    const before = { file: journalBytes(), changes: store.persistence!.journalBytes };

    store.run("UPDATE item SET status = 'FAILED', body = 'x' || body WHERE id % 13 = 0");
    await store.flush();

    const changes = store.persistence!.journalBytes - before.changes;
    expect(changes).toBeGreaterThan(16 * 1024);
    expect(journalBytes() - before.file).toBeLessThan(changes * 0.6);
    const reopened = await reopenedCopy();
    expect(reopened.value("SELECT count(*) FROM item WHERE status = 'FAILED' AND body LIKE 'x%'")).toBe(308);
    expect(reopened.value('PRAGMA quick_check')).toBe('ok');
  });

  it("new pages are deflated in an ordinary commit, and left as they are in a large one (a first sync's)", async () => {
    const store = await open();
    store.run('CREATE TABLE item (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    await store.flush();
    const grew = async (rows: number, from: number): Promise<{ file: number; changes: number }> => {
      const before = { file: journalBytes(), changes: store.persistence!.journalBytes };
      store.transaction(() => {
        for (let id = from; id < from + rows; id++)
          store.run('INSERT INTO item VALUES (?, ?)', [id, `row ${id} `.repeat(40)]);
      });
      await store.flush();
      return {
        file: journalBytes() - before.file,
        changes: store.persistence!.journalBytes - before.changes,
      };
    };
    const ordinary = await grew(2000, 0);
    expect(ordinary.changes).toBeGreaterThan(512 * 1024);
    expect(ordinary.file).toBeLessThan(ordinary.changes * 0.6);
    const large = await grew(40_000, 10_000);
    expect(large.changes).toBeGreaterThan(8 * 1024 * 1024);
    expect(large.file).toBeGreaterThan(large.changes * 0.95);
    expect((await reopenedCopy()).value('SELECT count(*) FROM item')).toBe(42_000);
  });

  it('group commit: commits within the debounce window share one write, made after the window', async () => {
    const debounceMs = 150;
    const store = await open({ debounceMs });
    addNote(store, 'base');
    await store.flush();
    const base = journalBytes();

    // Synchronous, so no timer can fire between the commits.
    const firstCommit = Date.now();
    for (let n = 0; n < 10; n++) {
      addNote(store, `n${n}`);
      sleepSync(5);
    }
    expect(journalBytes()).toBe(base);

    await waitFor(() => journalBytes() > base, 'the group commit was written');
    expect(Date.now() - firstCommit).toBeGreaterThanOrEqual(debounceMs - 5);
    expect(await reopenedNotes()).toEqual(['base', ...Array.from({ length: 10 }, (_, n) => `n${n}`)]);
  });

  it('a checkpoint writes the image, keeps the previous one as .bak, owner-only, and starts a new journal', async () => {
    await writeTwoVersions();

    expect(await notesIn(mainFile())).toEqual(['one', 'two']);
    expect(await notesIn(backupFile())).toEqual(['one']);
    expect(statSync(mainFile()).mode & 0o777).toBe(0o600);
    expect(statSync(backupFile()).mode & 0o777).toBe(0o600);
    // The backup's journal (leading from it to the image); the image's own starts at its first commit.
    expect(journals()).toHaveLength(1);
    const { log, warnings } = recordingLog();
    const store = await open({ log });
    expect(store.column('SELECT text FROM note ORDER BY rowid')).toEqual(['one', 'two']);
    expect(warnings).toEqual([]);
  });

  it('checkpoints by itself once the journal passes the threshold', async () => {
    const store = await open({ debounceMs: 5, checkpoint: { checkpointBytes: 64 * 1024 } });
    store.run('CREATE TABLE ballast (payload BLOB)');
    for (let n = 0; n < 10; n++) store.run('INSERT INTO ballast VALUES (randomblob(20000))');
    await waitFor(() => existsSync(mainFile()), 'a checkpoint wrote the image');
    addNote(store, 'after');
    await store.flush();
    expect(await reopenedNotes()).toEqual(['after']);
  });

  it('opening a folder whose journal is past the threshold (a killed or one-shot process) checkpoints', async () => {
    const writer = await open({
      checkpoint: { checkpointBytes: 1024 * 1024 * 1024, quitCheckpointBytes: Infinity },
    });
    writer.run('CREATE TABLE ballast (payload BLOB)');
    for (let n = 0; n < 10; n++) writer.run('INSERT INTO ballast VALUES (randomblob(20000))');
    await writer.close();
    expect(existsSync(mainFile())).toBe(false);

    await open({ checkpoint: { checkpointBytes: 64 * 1024 } });
    await waitFor(() => existsSync(mainFile()), 'a checkpoint wrote the image');
  });

  it('a checkpoint opening calls for waits a moment, so the first answers are not slowed by it', async () => {
    const writer = await open({
      checkpoint: { checkpointBytes: 1024 * 1024 * 1024, quitCheckpointBytes: Infinity },
    });
    addNote(writer, 'kept');
    await writer.close();

    const started = Date.now();
    await open({ checkpoint: { checkpointBytes: 1024, openCheckpointDelayMs: 400 } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(mainFile())).toBe(false);
    await waitFor(() => existsSync(mainFile()), 'a checkpoint wrote the image');
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(await notesIn(mainFile())).toEqual(['kept']);
  });

  it('the threshold follows the image: after a checkpoint of a grown database, it waits for a journal that large', async () => {
    const store = await open({ debounceMs: 5, checkpoint: { checkpointFloorBytes: 64 * 1024 } });
    store.run('CREATE TABLE ballast (payload BLOB)');
    store.transaction(() => {
      for (let n = 0; n < 20; n++) store.run('INSERT INTO ballast VALUES (randomblob(100000))');
    });
    // Past the 64 KiB floor: one checkpoint, which makes a 2 MB image.
    await waitFor(() => existsSync(mainFile()), 'a checkpoint wrote the image');
    await waitFor(() => store.persistence!.stats.checkpoints === 1, 'the checkpoint ended');
    const image = inode(mainFile());
    // 300 KiB of journal: past the floor, far below the image's size.
    for (let n = 0; n < 3; n++) store.run('INSERT INTO ballast VALUES (randomblob(100000))');
    await store.flush();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(store.persistence!.stats.checkpoints).toBe(1);
    expect(inode(mainFile())).toBe(image);
    // Past the image's size: the next one.
    for (let n = 0; n < 25; n++) store.run('INSERT INTO ballast VALUES (randomblob(100000))');
    await waitFor(() => inode(mainFile()) !== image, 'a second checkpoint');
  });

  it('the threshold is a fifth of the image, between 16 MiB and 128 MiB (a start replays at most that)', () => {
    const MiB = 1024 * 1024;
    expect(checkpointThreshold(1 * MiB)).toBe(16 * MiB);
    expect(checkpointThreshold(60 * MiB)).toBe(16 * MiB);
    expect(checkpointThreshold(150 * MiB)).toBe(30 * MiB);
    expect(checkpointThreshold(900 * MiB)).toBe(128 * MiB);
  });

  it('commits made while a checkpoint runs go to the next journal and survive a restart', async () => {
    const store = await open({ debounceMs: 5 });
    store.run('CREATE TABLE ballast (payload BLOB)');
    store.transaction(() => {
      for (let n = 0; n < 80; n++) store.run('INSERT INTO ballast VALUES (randomblob(100000))');
    });
    const checkpoint = store.persistence!.checkpoint();
    // The image is being written: the journals have been switched.
    await waitFor(
      () => readdirSync(dir).some((name) => name.startsWith(`${DATABASE_FILE}.tmp-`)),
      'the checkpoint writes its image',
    );
    addNote(store, 'during');
    await checkpoint;
    addNote(store, 'after');
    await store.flush();

    expect(await notesIn(mainFile())).toEqual([]);
    expect(await reopenedNotes()).toEqual(['during', 'after']);
  });

  it("a checkpoint's image is the database as of its start, though commits rewrite its pages while it is written", async () => {
    const store = await open({ debounceMs: 5 });
    store.run('CREATE TABLE item (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, pad BLOB NOT NULL)');
    store.transaction(() => {
      for (let id = 0; id < 3000; id++) store.run('INSERT INTO item VALUES (?, 1, randomblob(3000))', [id]);
    });
    const checkpoint = store.persistence!.checkpoint();
    await waitFor(
      () => readdirSync(dir).some((name) => name.startsWith(`${DATABASE_FILE}.tmp-`)),
      'the checkpoint writes its image',
    );
    // Every page of the table changes, most of them before the checkpoint has written them.
    store.run('UPDATE item SET n = 2');
    store.run('DELETE FROM item WHERE id % 3 = 0');
    await checkpoint;
    await store.flush();

    const SQL = await loadSqlJs();
    const image = new SQL.Database(readFileSync(mainFile()));
    try {
      expect(image.exec('PRAGMA quick_check')[0]!.values).toEqual([['ok']]);
      expect(image.exec('SELECT count(*), sum(n) FROM item')[0]!.values).toEqual([[3000, 3000]]);
    } finally {
      image.close();
    }
    const reopened = await reopenedCopy();
    expect(reopened.value('SELECT count(*) FROM item')).toBe(2000);
    expect(reopened.value('SELECT sum(n) FROM item')).toBe(4000);
  });

  it('a rolled-back sync that reused free pages, then a checkpoint: the image and the journal after it hold exactly the commits', async () => {
    const store = await open({ debounceMs: 5 });
    const row = (letter: string, id: number): string => `${letter.repeat(1000)}${id}`;
    store.run('CREATE TABLE item (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    store.transaction(() => {
      for (let id = 0; id < 12000; id++) store.run('INSERT INTO item VALUES (?, ?)', [id, row('x', id)]);
    });
    // Free pages: SQLite keeps no copy of a free page it reuses, so a rollback leaves what it wrote there.
    store.run('DELETE FROM item WHERE id >= 1000');
    expect(Number(store.value('PRAGMA freelist_count'))).toBeGreaterThan(1000);
    await store.flush();
    await expect(
      store.transactionInChunks(async (slice) => {
        // More than SQLite's 8 MiB cache: pages spill to the file before the failure.
        await slice(() => {
          for (let id = 50000; id < 62000; id++)
            store.run('INSERT INTO item VALUES (?, ?)', [id, row('R', id)]);
        });
        throw new Error('the sync failed');
      }),
    ).rejects.toThrow('the sync failed');
    await store.persistence!.checkpoint();
    store.transaction(() => {
      for (let id = 1000; id < 12000; id++) store.run('INSERT INTO item VALUES (?, ?)', [id, row('x', id)]);
    });
    await store.flush();

    const count = "SELECT count(*), sum(substr(body, 1, 1) = 'x') FROM item";
    const SQL = await loadSqlJs();
    const image = new SQL.Database(readFileSync(mainFile()));
    try {
      expect(image.exec('PRAGMA integrity_check')[0]!.values).toEqual([['ok']]);
      expect(image.exec(count)[0]!.values).toEqual([[1000, 1000]]);
    } finally {
      image.close();
    }
    const reopened = await reopenedCopy();
    expect(reopened.value('PRAGMA integrity_check')).toBe('ok');
    expect(reopened.all(count)).toEqual([{ 'count(*)': 12000, "sum(substr(body, 1, 1) = 'x')": 12000 }]);
  });

  it('a clean close leaves the image holding every commit, however small; with none, writes nothing', async () => {
    const first = await open();
    addNote(first, 'first');
    await first.close();
    expect(await notesIn(mainFile())).toEqual(['first']);

    const second = await open();
    addNote(second, 'second');
    await second.close();
    // The image alone, read by SQLite without the journals, is the whole database.
    expect(await notesIn(mainFile())).toEqual(['first', 'second']);

    const image = inode(mainFile());
    const names = readdirSync(dir).sort();
    const unchanged = await open();
    expect(unchanged.column('SELECT text FROM note ORDER BY rowid')).toEqual(['first', 'second']);
    await unchanged.close();
    expect(inode(mainFile())).toBe(image);
    expect(readdirSync(dir).sort()).toEqual(names);
  });

  it('a clean close brings back an image that was missing (opened from the backup), even without a commit', async () => {
    await writeTwoVersions();
    rmSync(mainFile());
    const store = await open();
    expect(store.column('SELECT text FROM note ORDER BY rowid')).toEqual(['one', 'two']);
    await store.close();
    expect(await notesIn(mainFile())).toEqual(['one', 'two']);
  });

  it('a close that cannot write the image (no room for it) still closes, every commit kept in the journal', async () => {
    const { log, warnings } = recordingLog();
    const store = await open({ log });
    addNote(store, 'kept');
    await store.flush();
    // The image's name taken by a folder: the checkpoint's swap fails, the journal is still written.
    mkdirSync(join(mainFile(), 'in-the-way'), { recursive: true });
    addNote(store, 'after');
    await store.close();
    expect(warnings).toEqual([
      expect.stringMatching(
        /^could not write the image at close \(.+\); every change is kept in the journal$/,
      ),
    ]);
    rmSync(mainFile(), { recursive: true });
    expect(await reopenedNotes()).toEqual(['kept', 'after']);
  });

  it('with a quit threshold (the benchmark, tests) close folds only a grown journal; a small one is only fsynced', async () => {
    const small = await open({ checkpoint: { quitCheckpointBytes: 1024 * 1024 } });
    addNote(small, 'small');
    await small.close();
    expect(existsSync(mainFile())).toBe(false);
    expect(await reopenedNotes()).toEqual(['small']);
    for (const store of stores.splice(0)) await store.close();

    const grown = await open({ checkpoint: { quitCheckpointBytes: 1024 } });
    addNote(grown, 'grown');
    await grown.close();
    expect(await notesIn(mainFile())).toEqual(['small', 'grown']);
  });

  it('a large commit is journaled in records of bounded size; without its last record none of it counts', async () => {
    // No checkpoint may take the journal away meanwhile (40 MB passes the threshold).
    const store = await open({ debounceMs: 5, checkpoint: { checkpointBytes: 1024 * 1024 * 1024 } });
    store.run('CREATE TABLE ballast (payload BLOB)');
    await store.flush();
    await store.transactionInChunks(async (slice) => {
      for (let n = 0; n < 40; n++)
        await slice(() => store.run('INSERT INTO ballast VALUES (randomblob(1000000))'));
    });
    await store.flush();
    const file = join(dir, journals()[0]!);
    const bytes = readFileSync(file);
    const records: { start: number; length: number }[] = [];
    for (let at = 40; at + 8 <= bytes.length; at += 8 + bytes.readUInt32LE(at)) {
      records.push({ start: at, length: bytes.readUInt32LE(at) });
    }
    expect(records.length).toBeGreaterThan(5);
    expect(Math.max(...records.map((record) => record.length))).toBeLessThan(8 * 1024 * 1024);
    expect((await reopenedCopy()).value('SELECT count(*) FROM ballast')).toBe(40);

    // A kill before the commit's last record reached the disk: whole or nothing.
    writeFileSync(file, bytes.subarray(0, records.at(-1)!.start));
    expect((await reopenedCopy()).value('SELECT count(*) FROM ballast')).toBe(0);
  });

  it('a synchronous transaction of any size (an import) is journaled in parts of bounded size', async () => {
    const store = await open({ debounceMs: 5 });
    store.transaction(() => {
      store.run('CREATE TABLE ballast (payload BLOB)');
      for (let n = 0; n < 40; n++) store.run('INSERT INTO ballast VALUES (randomblob(1000000))');
    });
    await store.flush();
    const [journal] = journals();
    const bytes = readFileSync(join(dir, journal!));
    const sizes: number[] = [];
    for (let at = 40; at + 8 <= bytes.length; at += 8 + bytes.readUInt32LE(at))
      sizes.push(bytes.readUInt32LE(at));
    expect(sizes.length).toBeGreaterThan(5);
    expect(Math.max(...sizes)).toBeLessThan(8 * 1024 * 1024);
    expect((await reopenedCopy()).value('SELECT count(*) FROM ballast')).toBe(40);
  });

  it('short writes (a disk that takes 1,000 bytes a call): the journal goes on where each stopped', async () => {
    let calls = 0;
    const openJournal: OpenJournalFile = async (file, flags) => {
      const handle = await openFile(file, flags);
      // The records a sync writes, at most 1,000 bytes at a time: what a slow or odd disk may do.
      const writev = async (buffers: NodeJS.ArrayBufferView[], position?: number) => {
        calls += 1;
        const first = Buffer.concat(buffers.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)));
        const part = first.subarray(0, 1000);
        const { bytesWritten } = await handle.write(part, 0, part.length, position);
        return { bytesWritten, buffers };
      };
      return new Proxy(handle, {
        get: (target, key) => {
          if (key === 'writev') return writev;
          const value: unknown = Reflect.get(target, key);
          return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
        },
      });
    };
    const store = await open({ debounceMs: 5, openJournal });
    for (let n = 0; n < 20; n++) addNote(store, `note ${n} ${'x'.repeat(300)}`);
    await store.flush();
    expect(calls).toBeGreaterThan(3);
    expect((await reopenedNotes()).map((note) => note.split(' ').slice(0, 2).join(' '))).toEqual(
      Array.from({ length: 20 }, (_, n) => `note ${n}`),
    );
  });

  it('a full disk (ENOSPC from /dev/full): reported, the store keeps working, nothing lost once there is room', async () => {
    let full = false;
    const openJournal: OpenJournalFile = (file, flags) =>
      openFile(full ? '/dev/full' : file, full ? 'r+' : flags);
    const { log, errors, warnings } = recordingLog();
    const store = await open({ log, debounceMs: 5, openJournal });
    addNote(store, 'before');
    await store.flush();
    const problems: (string | null)[] = [];
    store.persistence!.onProblem((problem) => problems.push(problem?.message ?? null));

    // A checkpoint starts the next journal, opened for its first write: the disk is full by then.
    full = true;
    await store.persistence!.checkpoint();
    addNote(store, 'while full');
    await expect(store.flush()).rejects.toThrow(/ENOSPC/);
    expect(store.persistence!.problem?.message).toMatch(/could not write to .*ENOSPC.*kept in memory/);
    expect(errors).toHaveLength(1);
    // Reads and further commits go on.
    addNote(store, 'still full');
    expect(store.column('SELECT text FROM note ORDER BY rowid')).toEqual([
      'before',
      'while full',
      'still full',
    ]);

    full = false;
    await store.flush();
    expect(store.persistence!.problem).toBeNull();
    expect(problems.at(-1)).toBeNull();
    expect(warnings.at(-1)).toMatch(/works again; nothing was lost/);
    expect(await reopenedNotes()).toEqual(['before', 'while full', 'still full']);
  });
});

describe('opening', () => {
  it('starts a new folder empty and quietly', async () => {
    const { log, warnings } = recordingLog();
    const store = await open({ log });
    expect(store.value('PRAGMA quick_check')).toBe('ok');
    await store.flush();
    expect(journals()).toHaveLength(1);
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

    expect(store.value('PRAGMA quick_check')).toBe('ok');
    const aside = readdirSync(dir).filter((name) => name.startsWith(`${DATABASE_FILE}.corrupt-`));
    expect(aside).toHaveLength(1);
    // Buffer#equals: a deep toEqual over every byte is slow.
    expect(readFileSync(join(dir, aside[0] ?? '')).equals(bad)).toBe(true);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/database file was unusable \(.+\); moved it to .*health\.sqlite\.corrupt-/);
    expect(warnings[1]).toMatch(/opened the backup/);
    // The backup's journal leads to the same commits as the image had.
    expect(store.column('SELECT text FROM note ORDER BY rowid')).toEqual(['one', 'two']);

    // The main file comes back without waiting for a change.
    await waitFor(() => existsSync(mainFile()), 'the main file was written again');
    await waitFor(async () => (await notesIn(mainFile())).length === 2, 'the image holds both notes');
  });

  it('opens the backup when the main file is missing', async () => {
    await writeTwoVersions();
    rmSync(mainFile());

    const { log, warnings } = recordingLog();
    const store = await open({ log });

    expect(store.column('SELECT text FROM note ORDER BY rowid')).toEqual(['one', 'two']);
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
    expect(readdirSync(dir).sort()).toEqual(
      [DATABASE_FILE, BACKUP_FILE, SUM_FILE, live, ...journals()].sort(),
    );
    expect(warnings).toEqual([]);
  });
});

describe('the image checksum (health.sqlite.sum)', () => {
  it.each([
    ['summed on this thread', undefined],
    ['summed on a worker, as a large image is', { offThreadFrom: 0 }],
  ])(
    'a changed byte SQLite would not notice is caught (%s): the image is moved aside and the backup used',
    async (_how, opening) => {
      await writeTwoVersions();
      const image = readFileSync(mainFile());
      const at = image.indexOf(Buffer.from('two'));
      expect(at).toBeGreaterThan(0);
      image[at] = 'T'.charCodeAt(0);
      writeFileSync(mainFile(), image);

      const { log, warnings } = recordingLog();
      const store = await open({ log, opening });
      expect(warnings[0]).toMatch(/database file was unusable \(its checksum does not match\)/);
      expect(store.column('SELECT text FROM note ORDER BY rowid')).toEqual(['one', 'two']);
    },
  );

  it('a sum about another image is not used: the integrity check runs and the image opens', async () => {
    await writeTwoVersions();
    const sum = readFileSync(join(dir, SUM_FILE));
    sum[8] = sum[8]! ^ 0xff;
    writeFileSync(join(dir, SUM_FILE), sum);

    const { log, warnings } = recordingLog();
    const store = await open({ log });
    expect(warnings).toEqual([]);
    expect(store.column('SELECT text FROM note ORDER BY rowid')).toEqual(['one', 'two']);
  });
});
