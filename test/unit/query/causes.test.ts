/**
 * Grouping rules of causes (DESIGN.md §11) as a table: each row is a troubled dataset (its status, its
 * supplier, and what its stored tasks say), and the expected cause id it lands in. Every stage, a null
 * shortCode, tasks not stored yet, tasks stored with no failed task, and MISSING by supplier.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatasetRecord } from '../../../shared/schemas';
import { STAGES, type Stage } from '../../../shared/status';
import { listCauses } from '../../../electron/query/causes';
import { Store } from '../../../electron/store/database';
import { writeDataset, writeTasks } from '../../../electron/store/datasetWriter';
import { ensureOrg } from '../../../electron/store/orgs';
import { acknowledge } from '../../../electron/store/acknowledgements';
import { fixtureRecords, tasksFailingAt } from '../../helpers/fixtures';

const ORG = 'acme';

type Tasks = { stage: Stage; code: string | null; message?: string } | 'not-stored' | 'none-failed';

interface Row {
  id: string;
  status: 'FAILED' | 'MISSING' | 'HEALTHY' | 'DELIVERED_LATE';
  supplier: string | null;
  tasks: Tasks;
  deliveredAt?: string;
  expected: string | null;
}

function put(store: Store, row: Row): void {
  const base = fixtureRecords(1, 3, row.id)[0]!;
  const deliveryId = `${row.id}-d1`;
  const record: DatasetRecord = {
    ...base,
    datasetId: row.id,
    datasetName: `Dataset ${row.id}`,
    supplier:
      row.supplier === null
        ? { id: null, name: null }
        : { id: row.supplier, name: `Supplier ${row.supplier}` },
    deliveryId,
    latestDeliveryStatus: row.status,
    deliveryEventList: [
      {
        ...base.deliveryEventList[0]!,
        status: row.status,
        deliveryId,
        deliveryDeadline: '2026-11-21T06:00:00.000Z',
        deliveredAt: row.deliveredAt ?? (row.status === 'MISSING' ? null : '2026-11-21T06:10:00.000Z'),
      },
    ],
  };
  store.transaction(() => {
    ensureOrg(store, ORG, new Date('2026-11-21T00:00:00.000Z'));
    writeDataset(store, ORG, record, { events: 'merge', deliveriesPerDataset: 100 });
    if (row.tasks === 'not-stored') return;
    const tasks =
      row.tasks === 'none-failed'
        ? tasksFailingAt(deliveryId, row.id, null, null)
        : tasksFailingAt(deliveryId, row.id, row.tasks.stage, row.tasks.code, row.tasks.message);
    writeTasks(store, ORG, deliveryId, tasks);
  });
}

const TABLE: Row[] = [
  // Every stage, one shortCode: four causes.
  ...STAGES.map((stage): Row => ({
    id: `s-${stage}`,
    status: 'FAILED',
    supplier: 'sup-a',
    tasks: { stage, code: 'E_X' },
    expected: `${stage}:E_X`,
  })),
  // The same stage and code from two suppliers: one cause.
  {
    id: 'auth-1',
    status: 'FAILED',
    supplier: 'sup-a',
    tasks: { stage: 'ingest', code: 'E_AUTH_FAILED' },
    expected: 'ingest:E_AUTH_FAILED',
  },
  {
    id: 'auth-2',
    status: 'FAILED',
    supplier: 'sup-b',
    tasks: { stage: 'ingest', code: 'E_AUTH_FAILED' },
    expected: 'ingest:E_AUTH_FAILED',
  },
  {
    id: 'auth-3',
    status: 'FAILED',
    supplier: 'sup-b',
    tasks: { stage: 'ingest', code: 'E_AUTH_FAILED' },
    deliveredAt: '2026-11-21T07:00:00.000Z',
    expected: 'ingest:E_AUTH_FAILED',
  },
  // Same code, another stage: another cause.
  {
    id: 'auth-n',
    status: 'FAILED',
    supplier: 'sup-a',
    tasks: { stage: 'normalize', code: 'E_AUTH_FAILED' },
    expected: 'normalize:E_AUTH_FAILED',
  },
  // No shortCode.
  {
    id: 'nocode',
    status: 'FAILED',
    supplier: 'sup-a',
    tasks: { stage: 'process', code: null },
    expected: 'process:',
  },
  // Tasks not stored yet, or stored without a failed task: unknown.
  { id: 'unk-1', status: 'FAILED', supplier: 'sup-a', tasks: 'not-stored', expected: 'unknown' },
  { id: 'unk-2', status: 'FAILED', supplier: 'sup-c', tasks: 'none-failed', expected: 'unknown' },
  // MISSING by supplier, whatever tasks say; an unknown supplier is its own group.
  { id: 'miss-1', status: 'MISSING', supplier: 'sup-a', tasks: 'not-stored', expected: 'missing:sup-a' },
  { id: 'miss-2', status: 'MISSING', supplier: 'sup-a', tasks: 'not-stored', expected: 'missing:sup-a' },
  { id: 'miss-3', status: 'MISSING', supplier: 'sup-b', tasks: 'not-stored', expected: 'missing:sup-b' },
  { id: 'miss-4', status: 'MISSING', supplier: null, tasks: 'not-stored', expected: 'missing:' },
  // Not troubled: in no cause.
  { id: 'ok-1', status: 'HEALTHY', supplier: 'sup-a', tasks: 'not-stored', expected: null },
  {
    id: 'late-1',
    status: 'DELIVERED_LATE',
    supplier: 'sup-a',
    tasks: { stage: 'ingest', code: 'E_AUTH_FAILED' },
    expected: null,
  },
];

let store: Store;
beforeEach(async () => {
  store = await Store.open({ dataDir: null });
  for (const row of TABLE) put(store, row);
});
afterEach(() => store.close());

const membership = (): Record<string, string> =>
  Object.fromEntries(
    listCauses(store, ORG).flatMap((cause) =>
      cause.datasets.map((dataset) => [dataset.datasetId, cause.causeId]),
    ),
  );

describe('causes', () => {
  it.each(TABLE)('$id ($status, $supplier) → $expected', (row) => {
    expect(membership()[row.id] ?? null).toBe(row.expected);
  });

  it('gives each cause its count, suppliers, first and last seen, and the latest failure as representative', () => {
    const auth = listCauses(store, ORG).find((cause) => cause.causeId === 'ingest:E_AUTH_FAILED')!;
    expect(auth).toMatchObject({
      kind: 'failed',
      title: 'Ingest failed: E_AUTH_FAILED',
      stage: 'ingest',
      shortCode: 'E_AUTH_FAILED',
      count: 3,
      unacknowledged: 3,
      firstSeenAt: '2026-11-21T06:10:00.000Z',
      lastSeenAt: '2026-11-21T07:00:00.000Z',
      representative: { datasetId: 'auth-3', deliveryId: 'auth-3-d1', message: 'it broke' },
    });
    expect(auth.suppliers).toEqual([
      { id: 'sup-b', name: 'Supplier sup-b', count: 2 },
      { id: 'sup-a', name: 'Supplier sup-a', count: 1 },
    ]);
    const missing = listCauses(store, ORG).find((cause) => cause.causeId === 'missing:sup-a')!;
    expect(missing).toMatchObject({ kind: 'missing', title: 'MISSING from Supplier sup-a', count: 2 });
    // MISSING: seen since its deadline.
    expect(missing.firstSeenAt).toBe('2026-11-21T06:00:00.000Z');
  });

  it('lists causes worst first: failures, then unknown, then missing; fully acknowledged ones after; larger first', () => {
    const order = () => listCauses(store, ORG).map((cause) => cause.causeId);
    const ids = order();
    expect(ids[0]).toBe('ingest:E_AUTH_FAILED');
    expect(ids.indexOf('unknown')).toBeGreaterThan(ids.indexOf('process:'));
    expect(ids.indexOf('missing:sup-a')).toBeGreaterThan(ids.indexOf('unknown'));
    expect(ids.indexOf('missing:sup-a')).toBeLessThan(ids.indexOf('missing:sup-b'));
    store.transaction(() => {
      for (const id of ['auth-1', 'auth-2', 'auth-3'])
        acknowledge(store, {
          orgId: ORG,
          datasetId: id,
          deliveryId: `${id}-d1`,
          status: 'FAILED',
          causeId: null,
          note: null,
          by: 'sam',
          at: '2026-11-21T08:00:00.000Z',
        });
    });
    const after = order();
    expect(after.indexOf('ingest:E_AUTH_FAILED')).toBeGreaterThan(after.indexOf('process:'));
    expect(after.indexOf('ingest:E_AUTH_FAILED')).toBeLessThan(after.indexOf('unknown'));
  });

  it('moves a dataset from unknown to its cause once its tasks are stored', () => {
    expect(membership()['unk-1']).toBe('unknown');
    store.transaction(() =>
      writeTasks(store, ORG, 'unk-1-d1', tasksFailingAt('unk-1-d1', 'unk-1', 'dispatch', 'E_X')),
    );
    expect(membership()['unk-1']).toBe('dispatch:E_X');
  });

  it('keeps another org’s failures out', () => {
    expect(listCauses(store, 'other')).toEqual([]);
  });
});
