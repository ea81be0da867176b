/**
 * What the tray reads of the synced orgs: counts by status, one dataset's status or name, FAILED ones
 * (unacknowledged, and acknowledged with who did it).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { datasetName } from '../../../electron/query/dataset';
import {
  acknowledgedCount,
  acknowledgedFailures,
  datasetStatus,
  failedDatasets,
  statusCounts,
} from '../../../electron/query/trayCounts';
import { acknowledge } from '../../../electron/store/tables/acknowledgements';
import { Store } from '../../../electron/store/database';
import { ORG, putDataset } from '../../helpers/alerts';

let store: Store;
beforeEach(async () => {
  store = await Store.open({ dataDir: null });
  putDataset(store, 1, 'HEALTHY', 'd1');
  putDataset(store, 2, 'FAILED', 'd2');
  putDataset(store, 3, 'FAILED', 'd3');
  putDataset(store, 4, 'SOMETHING_NEW', 'd4');
  putDataset(store, 5, 'FAILED', 'e5', { orgId: 'other' });
});
afterEach(() => store.close());

const NOTE = 'vendor ticket 4711';

const byStatus = (counts: { status: string | null; count: number }[]) =>
  Object.fromEntries(counts.map(({ status, count }) => [String(status), count]));

describe('tray counts', () => {
  it('counts the given orgs’ datasets by stored status, and none for no orgs', () => {
    expect(byStatus(statusCounts(store, [ORG]))).toEqual({ HEALTHY: 1, FAILED: 2, SOMETHING_NEW: 1 });
    expect(byStatus(statusCounts(store, [ORG, 'other']))).toEqual({
      HEALTHY: 1,
      FAILED: 3,
      SOMETHING_NEW: 1,
    });
    expect(statusCounts(store, [])).toEqual([]);
  });

  it('reads one dataset’s status and name; undefined status and null name when not stored', () => {
    expect(datasetStatus(store, ORG, 'ds-2')).toBe('FAILED');
    expect(datasetStatus(store, ORG, 'ds-5')).toBeUndefined();
    expect(datasetName(store, ORG, 'ds-2')).toBe('Dataset 2');
    expect(datasetName(store, ORG, 'ds-5')).toBeNull();
  });

  it('lists the first FAILED datasets of the orgs by name, up to the limit, with their deliveries', () => {
    expect(failedDatasets(store, [ORG, 'other'], 10)).toEqual([
      {
        orgId: ORG,
        datasetId: 'ds-2',
        datasetName: 'Dataset 2',
        deliveryId: 'd2',
        acknowledgedBy: null,
        acknowledgedNote: null,
      },
      {
        orgId: ORG,
        datasetId: 'ds-3',
        datasetName: 'Dataset 3',
        deliveryId: 'd3',
        acknowledgedBy: null,
        acknowledgedNote: null,
      },
      {
        orgId: 'other',
        datasetId: 'ds-5',
        datasetName: 'Dataset 5',
        deliveryId: 'e5',
        acknowledgedBy: null,
        acknowledgedNote: null,
      },
    ]);
    expect(failedDatasets(store, [ORG], 1).map((d) => d.datasetId)).toEqual(['ds-2']);
    expect(failedDatasets(store, [], 10)).toEqual([]);
  });

  it('leaves acknowledged failures out of the list and lists them apart with who acknowledged; a new delivery is not covered', () => {
    const ack = (datasetId: string, deliveryId: string, status = 'FAILED') =>
      store.transaction(() =>
        acknowledge(store, {
          orgId: ORG,
          datasetId,
          deliveryId,
          status,
          causeId: null,
          note: NOTE,
          by: 'sam',
          at: '2026-11-21T12:00:00.000Z',
        }),
      );
    ack('ds-2', 'd2');
    expect(failedDatasets(store, [ORG], 10).map((d) => d.datasetId)).toEqual(['ds-3']);
    expect(acknowledgedFailures(store, [ORG, 'other'], 10)).toEqual([
      {
        orgId: ORG,
        datasetId: 'ds-2',
        datasetName: 'Dataset 2',
        deliveryId: 'd2',
        acknowledgedBy: 'sam',
        acknowledgedNote: NOTE,
      },
    ]);
    expect(acknowledgedCount(store, [ORG, 'other'])).toBe(1);
    // An acknowledgement of another delivery or status does not hold.
    ack('ds-3', 'd-old');
    putDataset(store, 2, 'FAILED', 'd2b');
    expect(failedDatasets(store, [ORG], 10).map((d) => d.datasetId)).toEqual(['ds-2', 'ds-3']);
    expect(acknowledgedFailures(store, [ORG], 10)).toEqual([]);
    expect(acknowledgedFailures(store, [], 10)).toEqual([]);
    expect(acknowledgedCount(store, [ORG])).toBe(0);
    expect(acknowledgedCount(store, [])).toBe(0);
  });

  it('reads acknowledged failures up to the menu’s limit and counts them all, leaving out the given datasets', () => {
    for (let n = 10; n < 15; n++) putDataset(store, n, 'FAILED', `f${n}`);
    for (let n = 10; n < 15; n++)
      store.transaction(() =>
        acknowledge(store, {
          orgId: ORG,
          datasetId: `ds-${n}`,
          deliveryId: `f${n}`,
          status: 'FAILED',
          causeId: null,
          note: null,
          by: 'sam',
          at: '2026-11-21T12:00:00.000Z',
        }),
      );
    expect(acknowledgedFailures(store, [ORG], 2).map((d) => d.datasetId)).toEqual(['ds-10', 'ds-11']);
    expect(acknowledgedFailures(store, [ORG], 0)).toEqual([]);
    expect(acknowledgedCount(store, [ORG])).toBe(5);
    expect(
      acknowledgedCount(
        store,
        [ORG],
        [
          { orgId: ORG, datasetId: 'ds-11' },
          { orgId: 'other', datasetId: 'ds-12' },
        ],
      ),
    ).toBe(4);
  });
});
