/**
 * The changes a cycle holds for its commit (electron/sync/changes.ts): records past the memory bound
 * go to an owner-only spool file and come back exactly, in order, whatever their size or characters;
 * the facts a cycle needs before its commit are the same either way; the file goes when the set is
 * discarded.
 */
import fc from 'fast-check';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeSet, type RecordChange } from '../../../electron/sync/changes';
import { failedDeliveryOf, fingerprint } from '../../../electron/sync/fingerprint';
import { normalizeRemoteRecord } from '../../../electron/sync/page';
import { freeSlice } from '../../../electron/sync/slices';
import type { DatasetRecord } from '../../../shared/schemas';
import { fixtureRecords } from '../../helpers/fixtures';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function spoolDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dh-spool-'));
  dirs.push(dir);
  return dir;
}

const changeOf = (record: DatasetRecord): RecordChange => ({ record, hash: fingerprint(record) });
const bytesOf = (change: RecordChange): number => JSON.stringify(change.record).length;

/** Adds the changes the way the collector does (a flush after each), then reads them all back. */
async function roundTrip(set: ChangeSet, changes: RecordChange[]): Promise<RecordChange[]> {
  for (const change of changes) {
    set.add(change, bytesOf(change));
    await set.flush();
  }
  const read: RecordChange[] = [];
  await set.each(freeSlice, (change) => read.push(change));
  return read;
}

describe('changes past the memory bound', () => {
  it.each([
    ['all in memory', 1e9],
    ['some in memory, the rest spooled', 20_000],
    ['all spooled', 0],
  ])('%s: read back exactly and in order, with the same facts', async (_name, memoryBytes) => {
    const dir = spoolDir();
    const changes = fixtureRecords(40).map(changeOf);
    let spooledTo: string | undefined;
    const set = new ChangeSet({ dir, memoryBytes }, (path) => {
      spooledTo = path;
      // Owner-only, from the moment it exists.
      expect(statSync(path).mode & 0o777).toBe(0o600);
    });
    expect(await roundTrip(set, changes)).toEqual(changes);
    expect(set.count).toBe(40);
    expect(set.failedDeliveries).toEqual(
      changes.map(({ record }) => failedDeliveryOf(record)).filter((id) => id !== null),
    );
    expect(readdirSync(dir)).toEqual(memoryBytes === 1e9 ? [] : [spooledTo!.slice(dir.length + 1)]);
    await set.discard();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('records larger than a read, and characters cut by a read, come back exactly', async () => {
    const [record] = fixtureRecords(1);
    // 1.5 MiB names of multi-byte characters (and a lone surrogate): reads of 1 MiB cut through them.
    const changes = ['é', '😀', 'x\n\u2028"\\', '\ud800'].map((text, index) =>
      changeOf({ ...record!, datasetId: `ds-${index}`, datasetName: text.repeat(400_000) }),
    );
    const set = new ChangeSet({ dir: spoolDir(), memoryBytes: 0 });
    expect(await roundTrip(set, changes)).toEqual(changes);
    await set.discard();
  });

  it('any record text survives the spool', async () => {
    const [record] = fixtureRecords(1);
    const dir = spoolDir();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary' }), { maxLength: 20 }), async (names) => {
        const changes = names.map((datasetName, index) =>
          changeOf({ ...record!, datasetId: `ds-${index}`, datasetName }),
        );
        const set = new ChangeSet({ dir, memoryBytes: 0 });
        expect(await roundTrip(set, changes)).toEqual(changes);
        await set.discard();
      }),
      { numRuns: 50, seed: 12 },
    );
  });

  it('items spooled as the remote sent them come back as the records they were normalized to', async () => {
    const [record] = fixtureRecords(1);
    const dir = spoolDir();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: 'binary' }), { maxLength: 12 }),
        fc.constantFrom(0, 2, '\t', '\r\n '),
        async (names, indent) => {
          const set = new ChangeSet({ dir, memoryBytes: 0 });
          const changes: RecordChange[] = [];
          for (const [index, datasetName] of names.entries()) {
            // As a remote may send it: pretty-printed (newlines between tokens), a date in another
            // form, a field this version does not know.
            const item = {
              ...record!,
              datasetId: `ds-${index}`,
              datasetName,
              latestDeliveryTimestamp: '2026-11-20T04:00:00Z',
              unknownField: { nested: [1, 'two'] },
            };
            let text = JSON.stringify(item, null, indent);
            if (typeof indent === 'string') text = text.replaceAll('\n', indent === '\r\n ' ? '\r\n' : '\n');
            const received = normalizeRemoteRecord(JSON.parse(text)).record!;
            const change = { record: received, hash: fingerprint(received) };
            // Some with a byte-order mark before them, which the page's reader drops.
            const bytes = Buffer.from(index % 3 === 1 ? `\ufeff${text}` : text);
            set.add(change, text.length, bytes);
            await set.flush();
            changes.push(change);
          }
          const read: RecordChange[] = [];
          await set.each(freeSlice, (change) => read.push(change));
          expect(read).toEqual(changes);
          await set.discard();
        },
      ),
      { numRuns: 40, seed: 5 },
    );
  });

  it('a spool that cannot be written fails with where and why, and leaves nothing behind', async () => {
    const parent = spoolDir();
    const dir = join(parent, 'missing');
    const set = new ChangeSet({ dir, memoryBytes: 0 });
    set.add(changeOf(fixtureRecords(1)[0]!), 1);
    await expect(set.flush()).rejects.toThrow(
      `could not keep the changed datasets on disk in ${dir}: ENOENT`,
    );
    await set.discard();
    expect(readdirSync(parent)).toEqual([]);
  });
});
