/** The stored health the sync compares against, and the FAILED deliveries whose tasks it still needs. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failedDeliveriesWithoutTasks, hasStoredTasks } from '../../../electron/query/missingTasks';
import { storedDatasetIds, storedHealth, troubledDatasets } from '../../../electron/query/storedHealth';
import { Store } from '../../../electron/store/database';
import { writeTasks } from '../../../electron/store/tables/datasetWriter';
import { fixtureTasks } from '../../helpers/fixtures';
import { ORG, putDataset } from '../../helpers/alerts';

let store: Store;
beforeEach(async () => {
  store = await Store.open({ dataDir: null });
  putDataset(store, 1, 'HEALTHY', 'd1');
  putDataset(store, 2, 'FAILED', 'd2', { tasks: false });
  putDataset(store, 3, 'MISSING', 'd3');
  putDataset(store, 4, 'FAILED', 'd4');
  putDataset(store, 5, 'FAILED', 'e5', { orgId: 'other', tasks: false });
});
afterEach(() => store.close());

describe('stored health', () => {
  it('is the latest status, with the newest FAILED delivery while FAILED; undefined when not stored', () => {
    expect(storedHealth(store, ORG, 'ds-1')).toEqual({ status: 'HEALTHY', failedDeliveryId: null });
    expect(storedHealth(store, ORG, 'ds-2')).toEqual({ status: 'FAILED', failedDeliveryId: 'd2' });
    putDataset(store, 2, 'FAILED', 'd2b', { tasks: false });
    expect(storedHealth(store, ORG, 'ds-2')).toEqual({ status: 'FAILED', failedDeliveryId: 'd2b' });
    // Recovered: the FAILED delivery is still in the history, but no longer what the dataset is about.
    putDataset(store, 2, 'HEALTHY', 'd2c');
    expect(storedHealth(store, ORG, 'ds-2')).toEqual({ status: 'HEALTHY', failedDeliveryId: null });
    expect(storedHealth(store, ORG, 'ds-5')).toBeUndefined();
  });

  it('lists the org’s datasets, and its FAILED or MISSING ones', () => {
    expect(storedDatasetIds(store, ORG).sort()).toEqual(['ds-1', 'ds-2', 'ds-3', 'ds-4']);
    expect(troubledDatasets(store, ORG).sort()).toEqual(['ds-2', 'ds-3', 'ds-4']);
    expect(troubledDatasets(store, 'other')).toEqual(['ds-5']);
    expect(storedDatasetIds(store, 'nobody')).toEqual([]);
  });
});

describe('missing tasks', () => {
  it('are those of the FAILED datasets’ newest FAILED deliveries not stored yet, per org', () => {
    expect(failedDeliveriesWithoutTasks(store, ORG)).toEqual(['d2']);
    expect(failedDeliveriesWithoutTasks(store, 'other')).toEqual(['e5']);
    store.transaction(() => writeTasks(store, ORG, 'd2', fixtureTasks('d2', 'ds-2')));
    expect(failedDeliveriesWithoutTasks(store, ORG)).toEqual([]);
  });

  it('are stored or not, per org and delivery', () => {
    expect(hasStoredTasks(store, ORG, 'd4')).toBe(true);
    expect(hasStoredTasks(store, ORG, 'd2')).toBe(false);
    expect(hasStoredTasks(store, 'other', 'd4')).toBe(false);
  });
});
