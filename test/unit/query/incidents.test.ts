/**
 * The cause keys of incidents (docs/decisions.md "Incidents") as a table: each row is a troubled dataset
 * (its status, its supplier, and what its stored tasks say), all failing close in time, and the cause of
 * the incident it lands in. Every stage, a null shortCode, tasks not stored yet, tasks stored with no
 * failed task, and MISSING by supplier. (Grouping by time: test/unit/store/schema/incidents.test.ts.)
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatasetRecord } from '../../../shared/schemas';
import { STAGES, type Stage } from '../../../shared/status';
import {
  datasetNames,
  failMessages,
  failingCount,
  failurePlaces,
  listIncidents,
} from '../../../electron/query/incidents';
import { plannedQueries } from '../../helpers/queryPlans';
import { DEFAULT_INCIDENT_GAP_MS, refreshIncidents } from '../../../electron/store/schema/incidents';
import { Store } from '../../../electron/store/database';
import { writeDataset, writeTasks } from '../../../electron/store/tables/datasetWriter';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import { acknowledge } from '../../../electron/store/tables/acknowledgements';
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

/** Groups what is stored, as the sync's commit does. */
function regroup(store: Store): void {
  store.transaction(() =>
    refreshIncidents(store, ORG, {
      now: new Date('2026-11-21T09:00:00.000Z'),
      gapMs: DEFAULT_INCIDENT_GAP_MS,
    }),
  );
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
  regroup(store);
});
afterEach(() => store.close());

const membership = (): Record<string, string> =>
  Object.fromEntries(
    listIncidents(store, ORG).flatMap((cause) =>
      cause.datasets.map((dataset) => [dataset.datasetId, cause.causeId]),
    ),
  );

describe('incidents by cause', () => {
  it.each(TABLE)('$id ($status, $supplier) → $expected', (row) => {
    expect(membership()[row.id] ?? null).toBe(row.expected);
  });

  it('gives each incident its count, suppliers, first and last failure, and the latest failure as representative', () => {
    const auth = listIncidents(store, ORG).find((cause) => cause.causeId === 'ingest:E_AUTH_FAILED')!;
    expect(auth).toMatchObject({
      kind: 'failed',
      title: 'Ingest failed: E_AUTH_FAILED',
      stage: 'ingest',
      shortCode: 'E_AUTH_FAILED',
      count: 3,
      unacknowledged: 3,
      // Their failed tasks ended at the fixture's time (the delivered times are later).
      firstFailureAt: '2026-11-20T05:10:00.000Z',
      lastFailureAt: '2026-11-20T05:10:00.000Z',
      representative: { deliveryId: expect.stringMatching(/^auth-\d-d1$/), message: 'it broke' },
    });
    expect(auth.suppliers).toEqual([
      { id: 'sup-b', name: 'Supplier sup-b', count: 2 },
      { id: 'sup-a', name: 'Supplier sup-a', count: 1 },
    ]);
    const missing = listIncidents(store, ORG).find((cause) => cause.causeId === 'missing:sup-a')!;
    expect(missing).toMatchObject({ kind: 'missing', title: 'MISSING from Supplier sup-a', count: 2 });
    // MISSING: failed at its deadline.
    expect(missing.firstFailureAt).toBe('2026-11-21T06:00:00.000Z');
  });

  it('lists incidents someone must still own first, then by last failure, newest first', () => {
    const order = () => listIncidents(store, ORG).map((incident) => incident.causeId);
    const lastOf = () => listIncidents(store, ORG).map((incident) => incident.lastFailureAt);
    const sorted = [...lastOf()].sort().reverse();
    expect(lastOf()).toEqual(sorted);
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
    expect(after.at(-1)).toBe('ingest:E_AUTH_FAILED');
    expect(listIncidents(store, ORG).at(-1)).toMatchObject({ unacknowledged: 0, count: 3 });
  });

  it('moves a dataset from unknown to its cause once its tasks are stored', () => {
    expect(membership()['unk-1']).toBe('unknown');
    store.transaction(() =>
      writeTasks(store, ORG, 'unk-1-d1', tasksFailingAt('unk-1-d1', 'unk-1', 'dispatch', 'E_X')),
    );
    regroup(store);
    expect(membership()['unk-1']).toBe('dispatch:E_X');
  });

  it('keeps another org’s failures out', () => {
    expect(listIncidents(store, 'other')).toEqual([]);
  });

  it('without details, the same incidents and failures with names and messages left out; the messages read by delivery, a seek each', () => {
    const full = listIncidents(store, ORG);
    const light = listIncidents(store, ORG, { details: false });
    const plain = (incidents: typeof full) =>
      incidents.map((incident) => ({
        incidentId: incident.incidentId,
        count: incident.count,
        datasets: incident.datasets
          .map(({ datasetId, deliveryId, status, since, acknowledgement }) => ({
            datasetId,
            deliveryId,
            status,
            since,
            acknowledgement,
          }))
          .sort((a, b) => a.datasetId.localeCompare(b.datasetId)),
      }));
    expect(plain(light)).toEqual(plain(full));
    for (const dataset of light.flatMap((incident) => incident.datasets))
      expect([dataset.datasetName, dataset.supplierName, dataset.message]).toEqual([null, null, null]);

    const failed = full
      .filter((incident) => incident.kind === 'failed')
      .flatMap((incident) => incident.datasets);
    const deliveries = failed.map((dataset) => dataset.deliveryId!);
    const [query] = plannedQueries(store, () => failMessages(store, ORG, deliveries));
    expect(query!.plan).toMatch(/^SCAN j .*SEARCH t USING INDEX \S+ \(org_id=\? AND delivery_id=\?\)$/);
    const messages = failMessages(store, ORG, [...deliveries, 'no-such-delivery']);
    expect(Object.fromEntries(messages)).toEqual(
      Object.fromEntries(failed.filter((d) => d.message !== null).map((d) => [d.deliveryId, d.message])),
    );
    expect(messages.size).toBeGreaterThan(0);

    const everyDataset = full.flatMap((incident) => incident.datasets);
    const ids = everyDataset.map((dataset) => dataset.datasetId);
    const [namesQuery] = plannedQueries(store, () => datasetNames(store, ORG, ids));
    expect(namesQuery!.plan).toMatch(/SEARCH d USING INDEX \S+ \(org_id=\? AND dataset_id=\?\)$/);
    const names = datasetNames(store, ORG, [...ids, 'not-stored']);
    expect(names.size).toBe(new Set(ids).size);
    for (const dataset of everyDataset)
      expect(names.get(dataset.datasetId)).toEqual({
        datasetName: dataset.datasetName,
        supplierId: dataset.supplierId,
        supplierName: dataset.supplierName,
        dataProductName: dataset.dataProductName,
      });
  });

  it('places FAILED failures in their live incidents as the list does, a seek each (what the alerts name)', () => {
    const all = listIncidents(store, ORG);
    const failed = all
      .filter((incident) => incident.kind !== 'missing')
      .flatMap((incident) => incident.datasets.map((dataset) => ({ incident, dataset })));
    expect(failed.length).toBeGreaterThan(3);
    const keys = failed.map(({ dataset }) => ({
      datasetId: dataset.datasetId,
      deliveryId: dataset.deliveryId!,
    }));
    const places = failurePlaces(store, ORG, keys);
    expect(places.size).toBe(failed.length);
    for (const { incident, dataset } of failed)
      expect(places.get(dataset.deliveryId!)).toEqual({
        incident: {
          incidentId: incident.incidentId,
          causeId: incident.causeId,
          kind: incident.kind,
          title: incident.title,
          stage: incident.stage,
          shortCode: incident.shortCode,
        },
        supplierId: dataset.supplierId,
        supplierName: dataset.supplierName,
        message: dataset.message,
      });
    // MISSING failures, a delivery of another dataset, another org: none.
    const missing = all.find((incident) => incident.kind === 'missing')!.datasets[0]!;
    expect(
      failurePlaces(store, ORG, [{ datasetId: missing.datasetId, deliveryId: missing.deliveryId! }]).size,
    ).toBe(0);
    expect(failurePlaces(store, ORG, [{ datasetId: 'auth-1', deliveryId: 'auth-2-d1' }]).size).toBe(0);
    expect(failurePlaces(store, 'other', keys).size).toBe(0);
    // The count a cause's notification gives: its failures FAILED now.
    const auth = all.find((incident) => incident.causeId === 'ingest:E_AUTH_FAILED')!;
    expect(failingCount(store, ORG, auth.incidentId)).toBe(3);
    expect(failingCount(store, ORG, all.find((incident) => incident.kind === 'missing')!.incidentId)).toBe(0);
  });
});
