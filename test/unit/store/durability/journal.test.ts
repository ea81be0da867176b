/**
 * The journal against what a disk and a user can do to it (docs/storage.md): a garbage or corrupt tail, a
 * journal from another image, an image from another folder, a kill between a checkpoint's journal
 * switch and its rename, and any sequence of commits, rollbacks and checkpoints (property-based): the
 * folder always reopens to exactly what was committed and fsynced.
 */
import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../../../electron/store/database';
import type { StoreOptions } from '../../../../electron/store/storeOptions';
import { DATABASE_FILE } from '../../../../electron/store/durability/files';
import {
  HEADER_BYTES,
  applyPage,
  decodeHeader,
  encodeHeader,
} from '../../../../electron/store/durability/journalFile';
import { readRecords } from '../../../../electron/store/durability/journalReading';
import { unwritten } from '../../../../electron/store/durability/journal';

let root: string;
let copies = 0;
const stores: Store[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dh-journal-'));
});

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => {});
  rmSync(root, { recursive: true, force: true });
});

const warningsOf = () => {
  const warnings: string[] = [];
  return { warnings, log: { warn: (m: string) => warnings.push(m), error: (m: string) => warnings.push(m) } };
};

/** How stores are opened in the current test (see `bothWays`). */
let opening: StoreOptions['opening'];

async function open(dir: string, log = warningsOf().log): Promise<Store> {
  const store = await Store.open({ dataDir: dir, debounceMs: 10_000, log, opening });
  stores.push(store);
  return store;
}

/** The folder as a kill now would leave it, opened by a new store. */
async function reopenCopy(dir: string, log = warningsOf().log): Promise<Store> {
  const copy = join(root, `copy-${copies++}`);
  cpSync(dir, copy, { recursive: true });
  return open(copy, log);
}

function note(store: Store, text: string): void {
  store.run('CREATE TABLE IF NOT EXISTS note (text TEXT NOT NULL)');
  store.run('INSERT INTO note (text) VALUES (?)', [text]);
}

const notes = (store: Store): string[] => {
  const exists = store.value("SELECT count(*) FROM sqlite_master WHERE name = 'note'") === 1;
  return exists ? store.column<string>('SELECT text FROM note ORDER BY rowid') : [];
};

const journalFiles = (dir: string): string[] =>
  readdirSync(dir)
    .filter((name) => /^health\.sqlite\.journal-[0-9a-f]{8}$/.test(name))
    .map((name) => join(dir, name));

const waitUntil = async (condition: () => boolean): Promise<void> => {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setImmediate(resolve));
  }
};

/**
 * Runs `tests` as a small data directory opens (on one thread, pages kept in memory until the end of
 * the replay) and as a large one does (the image summed and records inflated on a worker thread, while
 * pages come and go through a replay cache far smaller than what the journal touches).
 */
function bothWays(tests: () => void): void {
  describe.each([
    ['on one thread', undefined],
    ['on a worker, through a cache of 2 pages', { offThreadFrom: 0, replayCacheBytes: 2 * 8192 }],
  ])('opened %s', (_way, way: StoreOptions['opening']) => {
    beforeEach(() => {
      opening = way;
    });
    afterEach(() => {
      opening = undefined;
    });
    tests();
  });
}

describe('a damaged journal', () =>
  bothWays(() => {
    it('garbage after the last record: every commit is kept, and appending goes on after them', async () => {
      const dir = join(root, 'data');
      const store = await open(dir);
      note(store, 'one');
      note(store, 'two');
      await store.flush();
      const [journal] = journalFiles(dir);
      appendFileSync(journal!, Buffer.from('\x07\x00\x00\x00garbage from a torn write'.repeat(10)));

      const reopened = await reopenCopy(dir);
      expect(notes(reopened)).toEqual(['one', 'two']);
      expect(reopened.value('PRAGMA quick_check')).toBe('ok');
      note(reopened, 'three');
      await reopened.flush();
      expect(notes(await reopenCopy(join(root, `copy-${copies - 1}`)))).toEqual(['one', 'two', 'three']);
    });

    it('a corrupt record: the commits before it are kept, it and everything after are dropped', async () => {
      const dir = join(root, 'data');
      const store = await open(dir);
      note(store, 'one');
      await store.flush();
      const [journal] = journalFiles(dir);
      const goodLength = readFileSync(journal!).length;
      note(store, 'two');
      note(store, 'three');
      await store.flush();
      const bytes = readFileSync(journal!);
      // A byte inside the next record (its body: length and checksum are its first 8 bytes).
      bytes[goodLength + 12] = bytes[goodLength + 12]! ^ 0xff;
      writeFileSync(journal!, bytes);

      const reopened = await reopenCopy(dir);
      expect(notes(reopened)).toEqual(['one']);
      expect(reopened.value('PRAGMA quick_check')).toBe('ok');
    });

    it('a record whose checksum holds but whose deflated pages do not inflate: dropped with what follows', async () => {
      const dir = join(root, 'data');
      const store = await open(dir);
      note(store, 'one');
      await store.flush();
      const [journal] = journalFiles(dir);
      const header = decodeHeader(readFileSync(journal!).subarray(0, HEADER_BYTES));
      if ('problem' in header) throw new Error(header.problem);
      // Commits (1) and deflated (2), one page, 5 pages after it, 100 bytes once inflated: not deflate data.
      const body = Buffer.concat([Buffer.alloc(16), Buffer.from('not deflate data at all')]);
      body.writeUInt32LE(3, 0);
      body.writeUInt32LE(1, 4);
      body.writeUInt32LE(5, 8);
      body.writeUInt32LE(100, 12);
      const frame = Buffer.alloc(8);
      frame.writeUInt32LE(body.length, 0);
      frame.writeUInt32LE(crc32(body, header.gen), 4);
      appendFileSync(journal!, Buffer.concat([frame, body]));

      const reopened = await reopenCopy(dir);
      expect(notes(reopened)).toEqual(['one']);
      expect(reopened.value('PRAGMA quick_check')).toBe('ok');
    });

    it('a header that does not check out: the journal is ignored, with a warning', async () => {
      const dir = join(root, 'data');
      const store = await open(dir);
      note(store, 'one');
      await store.persistence!.checkpoint();
      note(store, 'two');
      await store.flush();
      // The image's own journal: its generation is the one stamped in the image (application_id).
      const gen = readFileSync(join(dir, DATABASE_FILE)).readUInt32BE(68);
      const current = journalFiles(dir).find((file) => readFileSync(file).readUInt32LE(12) === gen)!;
      const bytes = readFileSync(current);
      bytes[12] = bytes[12]! ^ 0xff;
      writeFileSync(current, bytes);

      const { warnings, log } = warningsOf();
      const reopened = await reopenCopy(dir, log);
      expect(notes(reopened)).toEqual(['one']);
      expect(warnings).toEqual([expect.stringMatching(/ignored the journal .*header checksum mismatch/)]);
    });

    it('a commit cut before its last record, over pages that existed: they read as before it', async () => {
      const dir = join(root, 'data');
      const store = await open(dir);
      store.run('CREATE TABLE big (n INTEGER PRIMARY KEY, payload TEXT NOT NULL)');
      store.transaction(() => {
        for (let n = 0; n < 40; n++)
          store.run('INSERT INTO big VALUES (?, ?)', [n, `before ${n} `.repeat(20_000)]);
      });
      await store.flush();
      const [journal] = journalFiles(dir);
      const beforeLength = readFileSync(journal!).length;
      // Rewrites every page of the table in place: several records, the last one its commit.
      store.run("UPDATE big SET payload = replace(payload, 'before', 'after!')");
      await store.flush();
      const bytes = readFileSync(journal!);
      let last = beforeLength;
      for (let at = beforeLength; at + 8 <= bytes.length; at += 8 + bytes.readUInt32LE(at)) last = at;
      expect(last).toBeGreaterThan(beforeLength);
      writeFileSync(journal!, bytes.subarray(0, last));

      const reopened = await reopenCopy(dir);
      expect(reopened.value('PRAGMA quick_check')).toBe('ok');
      expect(reopened.value("SELECT count(*) FROM big WHERE payload LIKE 'before %'")).toBe(40);
    });
  }));

describe('a journal that shrinks while it is read', () => {
  it('gives the whole records still there and stops, whatever size it had when listed', async () => {
    const dir = join(root, 'data');
    const store = await open(dir);
    for (let n = 0; n < 30; n++) {
      note(store, `note ${n} `.repeat(300));
      await store.flush();
    }
    const [journal] = journalFiles(dir);
    const listedSize = statSync(journal!).size;
    const header = decodeHeader(readFileSync(journal!).subarray(0, HEADER_BYTES));
    if ('problem' in header) throw new Error(header.problem);
    const read = async (size: number): Promise<number[]> => {
      const handle = await openFile(journal!, 'r');
      try {
        const ends: number[] = [];
        for await (const record of readRecords(handle, header, size)) ends.push(record.end);
        return ends;
      } finally {
        await handle.close();
      }
    };
    const all = await read(listedSize);
    expect(all.length).toBeGreaterThan(20);
    // Cut in the middle of the 20th record, more than a frame's header of it left.
    const cutAt = all[18]! + Math.floor((all[19]! - all[18]!) / 2);
    expect(cutAt - all[18]!).toBeGreaterThan(8);
    truncateSync(journal!, cutAt);
    expect(await read(listedSize)).toEqual(all.slice(0, 19));
  });
});

describe('a short write of queued records', () => {
  it('leaves exactly the bytes not yet written, in order, whatever the split (empty records too)', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 20 }), { maxLength: 8 }), fc.nat(), (records, cut) => {
        const buffers = records.map((record) => Buffer.from(record));
        const all = Buffer.concat(buffers);
        const written = all.length === 0 ? 0 : cut % (all.length + 1);
        const rest = unwritten(buffers, written);
        expect(Buffer.concat(rest)).toEqual(all.subarray(written));
        // Whole records written are dropped, not kept empty; the records given are untouched.
        expect(rest.length).toBeLessThanOrEqual(buffers.length);
        expect(Buffer.concat(buffers)).toEqual(all);
      }),
    );
  });
});

describe('files that belong elsewhere', () => {
  it("another folder's journal is never replayed here", async () => {
    const mine = join(root, 'mine');
    const theirs = join(root, 'theirs');
    const a = await open(mine);
    note(a, 'mine');
    await a.persistence!.checkpoint();
    const b = await open(theirs);
    note(b, 'theirs');
    await b.persistence!.checkpoint();
    note(b, 'theirs, journaled');
    await b.flush();
    for (const file of journalFiles(theirs)) cpSync(file, join(mine, file.split('/').at(-1)!));

    expect(notes(await reopenCopy(mine))).toEqual(['mine']);
  });

  it("an image from another folder is not given this folder's journal", async () => {
    const mine = join(root, 'mine');
    const theirs = join(root, 'theirs');
    const a = await open(mine);
    note(a, 'mine');
    await a.persistence!.checkpoint();
    note(a, 'mine, journaled');
    await a.flush();
    const b = await open(theirs);
    note(b, 'theirs');
    await b.persistence!.checkpoint();
    cpSync(join(theirs, DATABASE_FILE), join(mine, DATABASE_FILE));

    const reopened = await reopenCopy(mine);
    expect(notes(reopened)).toEqual(['theirs']);
    expect(reopened.value('PRAGMA quick_check')).toBe('ok');
  });
});

describe('a journal of the previous format', () => {
  /**
   * Rewrites `file` (the first journal of a folder without an image) as format 1 wrote it: whole pages
   * after their numbers, no run counts, version 1 in the header.
   */
  async function asFormat1(file: string): Promise<void> {
    const handle = await openFile(file, 'r');
    const header = decodeHeader(readFileSync(file).subarray(0, HEADER_BYTES));
    if ('problem' in header) throw new Error(header.problem);
    const out = [encodeHeader({ ...header, version: 1 })];
    const { pageSize } = header;
    const current = new Map<number, Uint8Array>();
    for await (const record of readRecords(handle, header, statSync(file).size)) {
      const body = Buffer.alloc(12 + record.pages.length * (4 + pageSize));
      record.body.copy(body, 0, 0, 12);
      record.pages.forEach((page, i) => {
        const bytes = new Uint8Array(current.get(page.pgno) ?? new Uint8Array(pageSize));
        applyPage(record.body, page, bytes, 0);
        current.set(page.pgno, bytes);
        body.writeUInt32LE(page.pgno, 12 + i * (4 + pageSize));
        body.set(bytes, 16 + i * (4 + pageSize));
      });
      const frame = Buffer.alloc(8);
      frame.writeUInt32LE(body.length, 0);
      frame.writeUInt32LE(crc32(body, header.gen), 4);
      out.push(frame, body);
    }
    await handle.close();
    writeFileSync(file, Buffer.concat(out));
  }

  it('is replayed, and later commits go to a new journal that continues it', async () => {
    const dir = join(root, 'data');
    const store = await open(dir);
    note(store, 'one');
    await store.flush();
    const [journal] = journalFiles(dir);
    await asFormat1(journal!);

    const reopened = await reopenCopy(dir);
    expect(notes(reopened)).toEqual(['one']);
    note(reopened, 'two');
    await reopened.flush();
    const copy = join(root, `copy-${copies - 1}`);
    expect(journalFiles(copy)).toHaveLength(2);
    expect(notes(await reopenCopy(copy))).toEqual(['one', 'two']);
  });
});

describe('a kill during a checkpoint', () => {
  it('after the journal switch, before the new image is renamed in: the old image and both journals hold everything', async () => {
    const dir = join(root, 'data');
    const store = await open(dir);
    store.run('CREATE TABLE ballast (payload BLOB)');
    store.transaction(() => {
      for (let n = 0; n < 60; n++) store.run('INSERT INTO ballast VALUES (randomblob(100000))');
    });
    note(store, 'before');
    await store.persistence!.checkpoint();
    note(store, 'folded next');

    const checkpoint = store.persistence!.checkpoint();
    await waitUntil(() => readdirSync(dir).some((name) => name.startsWith(`${DATABASE_FILE}.tmp-`)));
    note(store, 'in the next journal');
    await store.flush();
    const killed = await reopenCopy(dir);
    await checkpoint;

    expect(notes(killed)).toEqual(['before', 'folded next', 'in the next journal']);
    expect(killed.value('PRAGMA quick_check')).toBe('ok');
    expect(notes(await reopenCopy(dir))).toEqual(['before', 'folded next', 'in the next journal']);
  });
});

describe('any sequence of commits, rollbacks and checkpoints', () =>
  bothWays(() => {
    type Step =
      { kind: 'commit'; rows: number } | { kind: 'rollback' } | { kind: 'checkpoint' } | { kind: 'big' };
    const step = fc.oneof(
      fc.record({ kind: fc.constant('commit' as const), rows: fc.integer({ min: 1, max: 40 }) }),
      fc.record({ kind: fc.constant('rollback' as const) }),
      fc.record({ kind: fc.constant('checkpoint' as const) }),
      fc.record({ kind: fc.constant('big' as const) }),
    );

    it('reopens to exactly the database in memory, every time', async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps: Step[]) => {
          const dir = join(root, `property-${run++}`);
          const store = await open(dir);
          store.run('CREATE TABLE item (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)');
          let next = 0;
          for (const s of steps) {
            if (s.kind === 'commit') {
              store.transaction(() => {
                for (let n = 0; n < s.rows; n++)
                  store.run('INSERT INTO item (payload) VALUES (?)', [`${next++}:`.repeat(50)]);
                store.run('DELETE FROM item WHERE id % 7 = ?', [next % 7]);
              });
            } else if (s.kind === 'rollback') {
              expect(() =>
                store.transaction(() => {
                  store.run('UPDATE item SET payload = ?', ['rolled back']);
                  throw new Error('no');
                }),
              ).toThrow('no');
            } else if (s.kind === 'big') {
              // A sync's commit: in slices, with the event loop (and group commits) running between them.
              await store.transactionInChunks(async (slice) => {
                for (let n = 0; n < 5; n++) {
                  await slice(() => store.run('INSERT INTO item (payload) VALUES (hex(randomblob(100000)))'));
                }
              });
            } else {
              await store.persistence!.checkpoint();
            }
          }
          await store.flush();
          const expected = store.all(
            'SELECT id, length(payload) AS size, substr(payload, 1, 20) AS head FROM item ORDER BY id',
          );
          const reopened = await reopenCopy(dir);
          expect(reopened.value('PRAGMA quick_check')).toBe('ok');
          expect(
            reopened.all(
              'SELECT id, length(payload) AS size, substr(payload, 1, 20) AS head FROM item ORDER BY id',
            ),
          ).toEqual(expected);
          for (const opened of stores.splice(0)) await opened.close();
        }),
        { numRuns: 12, seed: 0x12_2026 },
      );
    }, 120_000);
  }));
