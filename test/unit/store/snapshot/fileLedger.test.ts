/**
 * What an import keeps of its file to check it, in its database rather than in memory
 * (store/snapshot/fileLedger.ts, docs/storage.md "Memory"): the keys of `tasks` and `timeline` it has
 * read, whether still on their way to the database or written, told apart from the rows the org
 * stored before; the working table, gone once the import is done.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../../../electron/store/database';
import { packTasks } from '../../../../electron/store/schema/tasksBlob';
import { SnapshotChecker } from '../../../../electron/store/snapshot/fileChecks';
import { importSnapshot } from '../../../../electron/store/snapshot/importSnapshot';
import { SnapshotWriter } from '../../../../electron/store/snapshot/recordWriter';
import { fixtureRecords, fixtureTasks } from '../../../helpers/fixtures';

const NOW = new Date('2026-11-21T04:41:00.000Z');
const ORG = 'acme';
let store: Store;

beforeEach(async () => {
  store = await Store.open({ dataDir: null });
});
afterEach(async () => {
  await store.close();
});

/** Runs `work` with an import's writer, in a transaction rolled back after. */
function withWriter(work: (writer: SnapshotWriter) => void): void {
  expect(() =>
    store.transaction(() => {
      work(new SnapshotWriter(store, ORG, { now: NOW }));
      throw new Error('rolled back');
    }),
  ).toThrow('rolled back');
}

const tasks = (deliveryId: string): Uint8Array => packTasks(fixtureTasks(deliveryId, 'x'));

describe('the keys an import has read, in its database', () => {
  it('a tasks key is given once, whether its record is on its way or written', () => {
    withWriter(({ file }) => {
      const keys = Array.from({ length: 5_000 }, (_, i) => `dlv-${i}`);
      for (const key of keys) expect(file.note('tasks', key)).toBe(true);
      // On their way (the packer's worker has them).
      for (const key of keys) expect(file.note('tasks', key)).toBe(false);
    });
    withWriter((writer) => {
      const keys = Array.from({ length: 5_000 }, (_, i) => `dlv-${i}`);
      for (const key of keys) {
        expect(writer.file.note('tasks', key)).toBe(true);
        writer.tasks(key, tasks(key), null);
      }
      // Written: the database says so, nothing in memory does.
      for (const key of keys) expect(writer.file.note('tasks', key)).toBe(false);
      // A timeline's key is another map's.
      expect(writer.file.note('timeline', 'dlv-1')).toBe(true);
    });
  });

  it("the org's stored tasks are not the file's: the file's replace them, once", () => {
    const [record] = fixtureRecords(1, 3, 'keep');
    const stored = record!.deliveryId!;
    importSnapshot(
      store,
      ORG,
      { datasets: [record!], tasks: new Map([[stored, new SnapshotChecker().tasks(stored, {})]]) },
      { now: NOW },
    );
    withWriter((writer) => {
      expect(writer.file.note('tasks', stored)).toBe(true);
      writer.tasks(stored, tasks(stored), null);
      expect(writer.file.note('tasks', stored)).toBe(false);
      expect(store.value('SELECT count(*) FROM delivery_tasks WHERE org_id = ?', [ORG])).toBe(1);
    });
  });

  it('a timeline key is given once, whether held until the datasets are read or written', () => {
    withWriter((writer) => {
      const [a, b] = fixtureRecords(2, 5, 'tl');
      expect(writer.file.note('timeline', a!.datasetId)).toBe(true);
      // Held (the file gave it before its datasets).
      expect(writer.file.note('timeline', a!.datasetId)).toBe(false);
      writer.dataset(a!, 0);
      writer.dataset(b!, 1);
      writer.datasetsDone();
      writer.file.timeline(a!.datasetId, null);
      expect(writer.file.note('timeline', a!.datasetId)).toBe(false);
      // Written empty, of a dataset of the file: given all the same.
      expect(writer.file.note('timeline', b!.datasetId)).toBe(true);
      writer.file.timeline(b!.datasetId, null);
      expect(writer.file.note('timeline', b!.datasetId)).toBe(false);
    });
  });
});

describe('the working table', () => {
  it('is gone once an import is done, and with a refused one', () => {
    const tables = (): unknown =>
      store.column("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    const before = tables();
    const records = fixtureRecords(4, 9, 'w');
    importSnapshot(store, ORG, { datasets: records, tasks: new Map() }, { now: NOW });
    expect(tables()).toEqual(before);
    expect(() =>
      importSnapshot(store, ORG, { datasets: [...records, records[0]!], tasks: new Map() }, { now: NOW }),
    ).toThrow("$.datasets[4].datasetId: 'w-0000.X' also appears at $.datasets[0]");
    expect(tables()).toEqual(before);
  });
});
