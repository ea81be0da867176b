/**
 * Notifications grouped by cause (docs/architecture.md#grouping-by-incident): the pure plan as a table, then the engine over a real
 * store — one notification per cause with its suppliers and count, singles as before, a summary of the
 * top causes past three notifications, and a timeline entry for every dataset a notification covers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { planNotifications } from '../../../electron/alerts/grouping';
import type { CausedFailure } from '../../../electron/alerts/types';
import { Store } from '../../../electron/store/database';
import { datasetTimeline } from '../../../electron/store/tables/timeline';
import { ORG, alertsBench, putDataset } from '../../helpers/alerts';
import { incidentOf } from '../../helpers/incidents';

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

async function memoryStore(): Promise<Store> {
  const store = await Store.open({ dataDir: null });
  stores.push(store);
  return store;
}

const failure = (n: number, incidentId: string): CausedFailure => ({
  orgId: ORG,
  datasetId: `ds-${n}`,
  datasetName: `Dataset ${n}`,
  deliveryId: `dlv-${n}`,
  incidentId,
  causeId: incidentId,
  causeTitle: incidentId,
  reason: null,
  supplierId: null,
  supplierName: null,
});

/** Causes of the failures in order, e.g. 'AAB' → ds-1 and ds-2 of cause A, ds-3 of B. */
const failures = (causes: string): CausedFailure[] => [...causes].map((cause, i) => failure(i + 1, cause));

describe('the plan', () => {
  it.each([
    ['', []],
    ['A', ['failed ds-1']],
    ['AB', ['failed ds-1', 'failed ds-2']],
    ['AA', ['cause A ds-1,ds-2']],
    ['ABA', ['cause A ds-1,ds-3', 'failed ds-2']],
    ['ABC', ['failed ds-1', 'failed ds-2', 'failed ds-3']],
    ['AAAAAAAAA', ['cause A ds-1,ds-2,ds-3,ds-4,ds-5,ds-6,ds-7,ds-8,ds-9']],
    ['BAACC', ['cause A ds-2,ds-3', 'cause C ds-4,ds-5', 'failed ds-1']],
    ['ABCD', ['summary ds-1,ds-2,ds-3,ds-4']],
    ['AABBCCDD', ['summary ds-1,ds-2,ds-3,ds-4,ds-5,ds-6,ds-7,ds-8']],
  ])('%j → %j', (causes, expected) => {
    const plan = planNotifications(failures(causes)).map((item) =>
      item.kind === 'failed'
        ? `failed ${item.failure.datasetId}`
        : item.kind === 'cause'
          ? `cause ${item.incidentId} ${item.failures.map((f) => f.datasetId).join(',')}`
          : `summary ${item.failures.map((f) => f.datasetId).join(',')}`,
    );
    expect(plan).toEqual(expected);
  });
});

const BLUEFIN = { id: 'sup-bluefin', name: 'Bluefin Exchange Feeds' };
const ATLAS = { id: 'sup-atlas', name: 'Atlas Data' };
const CORAL = { id: 'sup-coral', name: 'Coral Markets' };

describe('notifications by cause', () => {
  it('gives a cause with several new failures one notification naming the cause, supplier and count; a lone failure its own', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    for (let n = 1; n <= 9; n++)
      putDataset(store, n, 'FAILED', `dlv-${n}`, { shortCode: 'E_AUTH_FAILED', supplier: BLUEFIN });
    putDataset(store, 10, 'FAILED', 'dlv-10', { supplier: ATLAS });
    const made = await bench.cycle();
    expect(made).toHaveLength(2);
    expect(made[0]).toMatchObject({
      kind: 'cause',
      orgId: ORG,
      incidentId: incidentOf(store, ORG, 'normalize:E_AUTH_FAILED'),
      causeTitle: 'Normalize failed: E_AUTH_FAILED',
      title: 'Normalize failed: E_AUTH_FAILED',
      body: '9 datasets from Bluefin Exchange Feeds',
      suppliers: [{ id: 'sup-bluefin', name: 'Bluefin Exchange Feeds', count: 9 }],
      target: { view: 'triage', orgId: ORG, incidentId: incidentOf(store, ORG, 'normalize:E_AUTH_FAILED') },
    });
    expect(made[0]!.kind === 'cause' && made[0]!.datasets.map((d) => d.deliveryId)).toHaveLength(9);
    expect(made[1]).toMatchObject({
      kind: 'failed',
      incidentId: incidentOf(store, ORG, 'normalize:E_SCHEMA_MISMATCH'),
      title: 'FAILED: Dataset 10',
      target: { view: 'delivery', orgId: ORG, datasetId: 'ds-10', deliveryId: 'dlv-10' },
    });
    // Never again, one by one or as a cause.
    expect(await bench.cycle({ kind: 'crawl' })).toEqual([]);
  });

  it('names up to two suppliers, then how many more', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    const suppliers = [BLUEFIN, BLUEFIN, ATLAS, CORAL, { id: 'sup-delta', name: 'Delta' }];
    suppliers.forEach((supplier, i) =>
      putDataset(store, i + 1, 'FAILED', `dlv-${i + 1}`, { shortCode: 'E_AUTH_FAILED', supplier }),
    );
    const [made] = await bench.cycle();
    expect(made?.body).toBe('5 datasets from Bluefin Exchange Feeds, Atlas Data and 2 more');
    putDataset(store, 1, 'FAILED', 'dlv-1b', { shortCode: 'E_X', supplier: BLUEFIN });
    putDataset(store, 3, 'FAILED', 'dlv-3b', { shortCode: 'E_X', supplier: ATLAS });
    expect((await bench.cycle()).map((a) => a.body)).toEqual([
      '2 datasets from Atlas Data and Bluefin Exchange Feeds',
    ]);
  });

  it('groups failures whose tasks are not synced yet as the unknown cause', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    putDataset(store, 1, 'FAILED', 'dlv-1', { tasks: false, supplier: BLUEFIN });
    putDataset(store, 2, 'FAILED', 'dlv-2', { tasks: false, supplier: BLUEFIN });
    const [made, ...rest] = await bench.cycle();
    expect(rest).toEqual([]);
    expect(made).toMatchObject({
      kind: 'cause',
      incidentId: incidentOf(store, ORG, 'unknown'),
      title: 'Failed, cause not known yet',
      body: '2 datasets from Bluefin Exchange Feeds',
      target: { view: 'triage', orgId: ORG, incidentId: incidentOf(store, ORG, 'unknown') },
    });
  });

  it('makes more than three notifications in one cycle one summary of the top causes, opening Triage', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    const codes = ['E_A', 'E_A', 'E_A', 'E_B', 'E_B', 'E_C', 'E_D'];
    codes.forEach((shortCode, i) => putDataset(store, i + 1, 'FAILED', `dlv-${i + 1}`, { shortCode }));
    const made = await bench.cycle();
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      kind: 'summary',
      cause: 'many',
      title: '7 datasets newly FAILED',
      body: `${ORG}: Normalize failed: E_A (3), Normalize failed: E_B (2), Normalize failed: E_C (1) and 1 more cause.`,
      causes: [
        { incidentId: incidentOf(store, ORG, 'normalize:E_A'), count: 3 },
        { incidentId: incidentOf(store, ORG, 'normalize:E_B'), count: 2 },
        { incidentId: incidentOf(store, ORG, 'normalize:E_C'), count: 1 },
        { incidentId: incidentOf(store, ORG, 'normalize:E_D'), count: 1 },
      ],
      target: { view: 'triage', orgId: ORG },
    });
    expect(await bench.cycle()).toEqual([]);
  });

  it('exactly three notifications stay three', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    ['E_A', 'E_A', 'E_B', 'E_C'].forEach((shortCode, i) =>
      putDataset(store, i + 1, 'FAILED', `dlv-${i + 1}`, { shortCode }),
    );
    expect((await bench.cycle()).map((a) => a.kind)).toEqual(['cause', 'failed', 'failed']);
  });

  it("writes the notification's title to the timeline of every dataset it covers", async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    putDataset(store, 1, 'FAILED', 'dlv-1', { shortCode: 'E_AUTH_FAILED', supplier: BLUEFIN });
    putDataset(store, 2, 'FAILED', 'dlv-2', { shortCode: 'E_AUTH_FAILED', supplier: BLUEFIN });
    putDataset(store, 3, 'FAILED', 'dlv-3');
    await bench.cycle();
    const notified = (datasetId: string) =>
      datasetTimeline(store, ORG, datasetId, 50).filter((entry) => entry.kind === 'notified');
    for (const datasetId of ['ds-1', 'ds-2'])
      expect(notified(datasetId)).toEqual([
        expect.objectContaining({
          text: 'Normalize failed: E_AUTH_FAILED',
          at: bench.clock.now.toISOString(),
        }),
      ]);
    expect(notified('ds-3').map((entry) => [entry.text, entry.deliveryId])).toEqual([
      ['FAILED: Dataset 3', 'dlv-3'],
    ]);
  });
});
