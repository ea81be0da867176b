/**
 * An export in slices (query/exportSnapshot.ts, docs/decisions.md "Export in slices"): the same text as
 * the export in one run, handed over a slice at a time; while it runs the store answers reads and the
 * local API answers requests, and a commit waits for its end (it neither fails nor shows up half in the
 * file, which imports again as the org of one moment). A reader that goes away ends it, and the writers
 * it held go on.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatasetRecord } from '../../../shared/schemas';
import { loadDemo } from '../../../electron/demo/load';
import { acknowledgeDataset } from '../../../electron/knowledge/acknowledge';
import { SLICE_CHARS, exportSnapshot, exportSnapshotInSlices } from '../../../electron/query/exportSnapshot';
import { Store } from '../../../electron/store/database';
import { importSnapshotFile } from '../../../electron/store/snapshot/importSnapshot';
import { deleteDataset } from '../../../electron/store/tables/datasetWriter';
import { type ApiFixture, NOW, apiFixture } from '../../helpers/api';

const BIG = 'big';
let fixture: ApiFixture;
let store: Store;

beforeEach(async () => {
  fixture = await apiFixture();
  store = fixture.store;
  // About 4 MB of snapshot: several slices.
  loadDemo(store, { orgId: BIG, datasets: 200, seed: 25, now: NOW });
});
afterEach(async () => {
  await fixture.close();
});

function exportedAtOnce(from: Store, orgId = BIG): string {
  let text = '';
  exportSnapshot(from, orgId, (chunk) => (text += chunk));
  return text;
}

/** An export whose sink stops at slice `pauseAt` until `resume` is called. */
function pausedExport(from: Store, pauseAt = 1) {
  const slices: string[] = [];
  let resume!: () => void;
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  let paused!: () => void;
  const reached = new Promise<void>((resolve) => (paused = resolve));
  const progress: number[] = [];
  const done = exportSnapshotInSlices(from, BIG, {
    write: async (text) => {
      slices.push(text);
      if (slices.length === pauseAt) {
        paused();
        await resumed;
      }
    },
    progress: ({ records }) => progress.push(records),
  });
  return { slices, done, reached, resume, progress, text: () => slices.join('') };
}

/** Whether a promise has settled, looked at after some turns of the loop. */
function settled(promise: Promise<unknown>): () => boolean {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  return () => done;
}

const turns = async (count = 5) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('an export in slices', () => {
  it('writes the text of the export in one run, a slice at a time, and counts its records as it goes', async () => {
    const whole = exportedAtOnce(store);
    const run = pausedExport(store, 0);
    const counts = await run.done;
    expect(run.text()).toBe(whole);
    expect(run.slices.length).toBeGreaterThan(2);
    for (const slice of run.slices.slice(0, -1)) expect(slice.length).toBeGreaterThanOrEqual(SLICE_CHARS);
    expect(counts).toMatchObject({ datasets: 200 });
    // After each slice but the last: records (datasets, then tasks of deliveries) written so far.
    expect(run.progress).toHaveLength(run.slices.length - 1);
    expect(run.progress).toEqual([...run.progress].sort((a, b) => a - b));
    expect(run.progress[0]).toBeGreaterThan(0);
    expect(run.progress.at(-1)).toBeLessThanOrEqual(counts!.datasets + counts!.tasks);
    expect(await exportSnapshotInSlices(store, 'nobody', { write: async () => {} })).toBeNull();
  });

  it('the store answers reads and the local API (v2 and /local/v1) answers requests while it runs', async () => {
    const run = pausedExport(store);
    await run.reached;
    // Half-way through the file: a read, and requests through the API's whole path (auth included).
    expect(await store.whenReadable(() => exportedAtOnce(store, 'acme').length)).toBeGreaterThan(0);
    const [first] = fixture.records;
    const urls = [
      '/v2/ops/health/datasets/deliveries?pageSize=5',
      `/v2/ops/health/datasets/${first!.datasetId}/deliveries`,
      `/v2/ops/health/deliveries/${first!.deliveryId}/tasks`,
      '/local/v1/incidents',
      '/local/v1/acknowledgements',
      `/local/v1/datasets/${first!.datasetId}/timeline`,
      '/local/v1/upcoming',
      '/local/v1/stats',
      '/local/v1/handoff',
    ];
    const answered = Promise.all(urls.map((url) => fixture.get(url)));
    const waited = await Promise.race([
      answered.then(() => 'answered'),
      new Promise((resolve) => setTimeout(resolve, 10_000, 'still waiting after 10 s')),
    ]);
    expect(waited).toBe('answered');
    expect((await answered).map((answer) => answer.statusCode)).toEqual(urls.map(() => 200));
    expect(run.slices).toHaveLength(1);
    run.resume();
    await run.done;
    expect(run.text()).toBe(exportedAtOnce(store));
  });

  it('a commit during it waits for its end: the file is the org before it, whole, and imports again', async () => {
    const before = exportedAtOnce(store);
    const records = JSON.parse(before) as { datasets: DatasetRecord[] };
    const failed = records.datasets.find((record) => record.latestDeliveryStatus === 'FAILED')!;
    const last = records.datasets.at(-1)!;
    const run = pausedExport(store);
    await run.reached;
    // As the window acknowledges (whenIdle), and as a sync commits (a chunked transaction): one
    // change lands near the file's end (the knowledge), one in the datasets not written yet.
    const acknowledged = store.whenIdle(() =>
      acknowledgeDataset(store, BIG, failed.datasetId, 'on it', { by: 'sam', now: NOW }),
    );
    const synced = store.transactionInChunks(async (slice) => {
      await slice(() => deleteDataset(store, BIG, last.datasetId));
    });
    const commits = settled(Promise.all([acknowledged, synced]));
    await turns();
    expect(commits()).toBe(false);
    run.resume();
    await run.done;
    await Promise.all([acknowledged, synced]);

    expect(run.text()).toBe(before);
    const after = exportedAtOnce(store);
    expect(after).not.toBe(before);
    expect(after).toContain('"by":"sam"');
    const ids = (text: string) => (JSON.parse(text) as typeof records).datasets.map((d) => d.datasetId);
    expect(ids(after)).toEqual(ids(before).slice(0, -1));

    const fresh = await Store.open({ dataDir: null });
    try {
      await importSnapshotFile(fresh, BIG, bytes(run.text()), { now: NOW });
      expect(exportedAtOnce(fresh)).toBe(before);
    } finally {
      await fresh.close();
    }
  });

  it('a sink that fails ends it, frees what it read, and the writers waiting go on', async () => {
    let slices = 0;
    const failing = exportSnapshotInSlices(store, BIG, {
      write: async () => {
        if (++slices === 2) throw new Error('the reader went away');
      },
    });
    const write = store.whenIdle(() => deleteDataset(store, BIG, 'nothing-such'));
    await expect(failing).rejects.toThrow('the reader went away');
    expect(await write).toBe(false);
    // Not held any more: a write that does not wait goes through.
    expect(store.transaction(() => deleteDataset(store, BIG, 'nothing-such'))).toBe(false);
    expect(slices).toBe(2);
  });
});

async function* bytes(text: string): AsyncGenerator<Buffer> {
  const all = Buffer.from(text);
  for (let at = 0; at < all.length; at += 1 << 20) yield all.subarray(at, at + (1 << 20));
}
