/**
 * An import written as its file is read (store/snapshot/importSnapshot.ts `importSnapshotFile`, docs/architecture.md#snapshots, docs/architecture.md#performance-budgets):
 * it stores what the whole-file path stores, whatever the layout and the chunks; and a problem anywhere
 * in the file, however late, leaves the store as it was — its data, and the indexes an import into an
 * empty store drops while it writes and builds again at its end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DatasetRecord, TasksRecord } from '../../../../shared/schemas';
import { exportSnapshot } from '../../../../electron/query/exportSnapshot';
import { Store } from '../../../../electron/store/database';
import { ensureOrg } from '../../../../electron/store/tables/orgs';
import {
  SnapshotError,
  importSnapshot,
  importSnapshotFile,
  parseSnapshot,
} from '../../../../electron/store/snapshot/importSnapshot';
import { fixtureRecords, fixtureTasks } from '../../../helpers/fixtures';

const NOW = new Date('2026-11-21T04:41:00.000Z');
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function newStore(): Promise<Store> {
  const store = await Store.open({ dataDir: null });
  stores.push(store);
  return store;
}

/** A store holding org acme (5 datasets), as a user's data directory would. */
async function seededStore(): Promise<Store> {
  const store = await newStore();
  importSnapshot(store, 'acme', { datasets: fixtureRecords(5, 3, 'keep'), tasks: new Map() }, { now: NOW });
  return store;
}

/** The file's bytes, `size` at a time, as the import command reads them. */
async function* chunks(text: string, size: number, failAfter = Infinity): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0, n = 0; at < bytes.length; at += size, n++) {
    if (n >= failAfter) throw new Error('stopped by a signal');
    yield bytes.subarray(at, at + size);
  }
}

/** Everything a store holds that an import could change: every org's export, and the schema. */
function state(store: Store): unknown {
  const orgs = store.column<string>('SELECT id FROM orgs ORDER BY id');
  return {
    orgs: orgs.map((org) => {
      let text = '';
      exportSnapshot(store, org, (chunk) => (text += chunk));
      return text;
    }),
    schema: store.all('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name'),
    configs: store.value('SELECT count(*) FROM configs'),
  };
}

function snapshotOf(
  count: number,
  prefix: string,
): { datasets: DatasetRecord[]; tasks: Record<string, TasksRecord> } {
  const datasets = fixtureRecords(count, 11, prefix);
  const tasks = Object.fromEntries(
    datasets
      .filter((_, i) => i % 3 === 0)
      .map((record) => [record.deliveryId!, fixtureTasks(record.deliveryId!, record.datasetId)]),
  );
  return { datasets, tasks };
}

/** A record per line, as `export` writes (the import's fast path), or pretty-printed (its slow path). */
const LAYOUTS: Record<string, (value: object) => string> = {
  lines: (value) => {
    const { datasets, tasks } = value as { datasets: unknown[]; tasks: Record<string, unknown> };
    const records = datasets.map((record) => `\n${JSON.stringify(record)}`).join(',');
    const filed = Object.entries(tasks)
      .map(([id, record]) => `\n${JSON.stringify(id)}:${JSON.stringify(record)}`)
      .join(',');
    return `{"datasets":[${records}\n],"tasks":{${filed}\n}}\n`;
  },
  pretty: (value) => JSON.stringify(value, null, 2),
};

describe('an import read as it arrives', () => {
  it.each(Object.keys(LAYOUTS))('stores what the whole-file path stores (%s)', async (layout) => {
    const text = LAYOUTS[layout]!(snapshotOf(60, 'imp'));
    const whole = await newStore();
    importSnapshot(whole, 'acme', parseSnapshot(text), { now: NOW });
    for (const size of [7, 1000, 1 << 20]) {
      const streamed = await newStore();
      const counts = await importSnapshotFile(streamed, 'acme', chunks(text, size), { now: NOW });
      expect(counts).toEqual({
        datasets: 60,
        tasks: 20,
        timelineEntries: 0,
        acknowledgements: 0,
        syncOutages: 0,
        incidents: 0,
      });
      expect(state(streamed)).toEqual(state(whole));
    }
  });

  it('into an org that has data: the file replaces its datasets, leaves the others', async () => {
    const text = LAYOUTS.lines!(snapshotOf(12, 'keep'));
    const whole = await seededStore();
    importSnapshot(whole, 'acme', parseSnapshot(text), { now: NOW });
    const streamed = await seededStore();
    await importSnapshotFile(streamed, 'acme', chunks(text, 333), { now: NOW });
    expect(state(streamed)).toEqual(state(whole));
  });

  it('reads tasks that come before the datasets', async () => {
    const { datasets, tasks } = snapshotOf(6, 'first');
    const store = await newStore();
    const counts = await importSnapshotFile(store, 'acme', chunks(JSON.stringify({ tasks, datasets }), 50), {
      now: NOW,
    });
    expect(counts).toEqual({
      datasets: 6,
      tasks: 2,
      timelineEntries: 0,
      acknowledgements: 0,
      syncOutages: 0,
      incidents: 0,
    });
  });
});

describe('a problem late in a large file leaves the store as it was', () => {
  const { datasets, tasks } = snapshotOf(300, 'big');
  const good = LAYOUTS.lines!({ datasets, tasks });
  /** The file with its last dataset record replaced by `last`. */
  const withLast = (last: unknown): string =>
    LAYOUTS.lines!({ datasets: [...datasets.slice(0, -1), last], tasks });
  const ROWS: [name: string, text: string, message: RegExp][] = [
    [
      'a bad status in the last record',
      withLast({ ...datasets.at(-1)!, latestDeliveryStatus: 'NOT OK' }),
      /^\$\.datasets\[299\]\.latestDeliveryStatus: 'NOT OK' is not a status/,
    ],
    [
      'the last record not JSON',
      good.replace(/\n(\{"legacyDatasetId"[^\n]*)\n\]/, (_, last: string) => `\n${last.slice(0, -1)},}\n]`),
      /^not valid JSON in \$\.datasets\[299\] \(line 301, column \d+\): Expected double-quoted property name$/,
    ],
    [
      'the file cut short',
      good.slice(0, -200),
      /^not valid JSON: the file ends before the snapshot does \(inside \$\.tasks\["big-[\w.]+-dlv-0"\], line \d+\)$/,
    ],
    [
      'a datasetId given twice',
      withLast({
        ...datasets.at(-1)!,
        datasetId: datasets[0]!.datasetId,
        deliveryId: null,
        deliveryEventList: [],
      }),
      /^\$\.datasets\[299\]\.datasetId: 'big-0000\.X' also appears at \$\.datasets\[0\]$/,
    ],
    [
      'a delivery under two datasets',
      withLast({ ...datasets.at(-1)!, deliveryId: datasets[1]!.deliveryId, deliveryEventList: [] }),
      /^\$\.datasets\[299\]\.deliveryId: delivery 'big-0001-dlv-0' also belongs to \$\.datasets\[1\]\.deliveryEventList\[0\]\.deliveryId$/,
    ],
    [
      'tasks of a delivery no dataset has (checked once the whole file is read)',
      LAYOUTS.lines!({ datasets, tasks: { ...tasks, nowhere: fixtureTasks('nowhere', 'x') } }),
      /^\$\.tasks\["nowhere"\]: no dataset of the file or of org 'acme' has a delivery with this id$/,
    ],
  ];

  for (const [kind, open] of [
    ['an empty store', newStore],
    ['a store with data', seededStore],
  ] as const) {
    it.each(ROWS)(
      `%s: refused, ${kind} unchanged, and a good import works after`,
      async (_name, text, message) => {
        const store = await open();
        const before = state(store);
        const refused = await importSnapshotFile(store, 'acme', chunks(text, 4096), { now: NOW }).catch(
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(SnapshotError);
        expect((refused as Error).message).toMatch(message);
        expect(state(store)).toEqual(before);
        await importSnapshotFile(store, 'acme', chunks(good, 4096), { now: NOW });
        expect(
          store.value("SELECT count(*) FROM datasets WHERE org_id = 'acme' AND dataset_id LIKE 'big-%'"),
        ).toBe(300);
      },
    );

    it(`a reader that stops half-way (a signal): ${kind} unchanged`, async () => {
      const store = await open();
      const before = state(store);
      const stopped = importSnapshotFile(store, 'acme', chunks(good, 4096, 40), { now: NOW });
      await expect(stopped).rejects.toThrow('stopped by a signal');
      expect(state(store)).toEqual(before);
    });
  }

  it("a delivery stored under another of the org's datasets is found in one pass after the writes", async () => {
    const store = await seededStore();
    ensureOrg(store, 'acme', NOW);
    const stored = fixtureRecords(5, 3, 'keep')[2]!.deliveryId!;
    const text = withLast({ ...datasets.at(-1)!, deliveryId: stored, deliveryEventList: [] });
    const before = state(store);
    await expect(importSnapshotFile(store, 'acme', chunks(text, 4096), { now: NOW })).rejects.toThrow(
      `$.datasets[299].deliveryId: delivery '${stored}' is already stored under dataset 'keep-0002' of org 'acme'`,
    );
    expect(state(store)).toEqual(before);
  });
});
