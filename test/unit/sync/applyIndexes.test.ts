/**
 * A first sync into an empty datasets table builds the table's sort indexes once, at the end
 * (docs/decisions.md "Indexes built once, into empty tables"): the commit ends with every index as its
 * definition says and with the same rows and answers as a sync that kept them; one that fails half-way
 * leaves the indexes as they were; a sync into a table that holds rows keeps them all along.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../../electron/store/database';
import { storedDatasetIds } from '../../../electron/query/storedHealth';
import { listDatasets } from '../../../electron/query/list';
import { parseSelection } from '../../../electron/query/selection';
import { applySync } from '../../../electron/sync/apply';
import { ChangeSet, type Changes, defaultSpoolOptions } from '../../../electron/sync/changes';
import { fixtureRecords } from '../../helpers/fixtures';

const NOW = new Date('2026-11-21T04:41:00.000Z');
let stores: Store[] = [];
beforeEach(() => {
  stores = [];
});
afterEach(async () => {
  for (const store of stores) await store.close();
});

async function openStore(): Promise<Store> {
  const store = await Store.open({ dataDir: null });
  stores.push(store);
  return store;
}

const indexes = (store: Store): string[] =>
  store
    .all(`SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name`)
    .map((row) => `${String(row.name)}: ${String(row.sql)}`);

function changesOf(orgId: string, count: number, seed: string): ChangeSet {
  const changes = new ChangeSet(defaultSpoolOptions());
  fixtureRecords(count, 5, seed).forEach((record, i) =>
    changes.add({ record: { ...record, ownerOrgId: orgId }, hash: `${seed}-${i}` }, 100),
  );
  return changes;
}

async function sync(store: Store, orgId: string, changes: Changes, deferIndexesFrom = 1): Promise<void> {
  const stored = new Map(storedDatasetIds(store, orgId).map((id) => [id, true]));
  await applySync(store, { orgId, changes, stored, now: NOW, deliveriesPerDataset: 30, deferIndexesFrom });
}

/** Every sort order of the list, first page: what the indexes serve. */
const SORTS = [
  '',
  'latestDeliveryStatus',
  'latestDeliveryStatus.desc',
  'latestDeliveryTimestamp',
  'latestDeliveryTimestamp.desc',
  'latestDeliveryStatus,latestDeliveryTimestamp.desc',
  'latestDeliveryTimestamp.desc,latestDeliveryStatus',
];
/** The pages' items (their tokens hold row keys, which the other org's row moves). */
function answers(store: Store, orgId: string): unknown[] {
  return SORTS.map((sort) =>
    listDatasets(store, {
      ...parseSelection({ orgId, filters: [], sort }),
      pageSize: 25,
      pageToken: null,
      latestDeliveriesCount: 3,
    }).toString(),
  ).map((page) => (JSON.parse(page) as { items: unknown[] }).items);
}

describe('a first sync into an empty datasets table', () => {
  it('ends with every index as defined, and the same answers as a sync that kept them', async () => {
    const fresh = await openStore();
    const before = indexes(fresh);
    await sync(fresh, 'acme', changesOf('acme', 120, 'first'));
    expect(indexes(fresh)).toEqual(before);
    expect(fresh.value('PRAGMA integrity_check')).toBe('ok');

    // The same records into a store whose datasets table held a row already: no index set aside.
    const kept = await openStore();
    await sync(kept, 'other', changesOf('other', 1, 'seed'));
    await sync(kept, 'acme', changesOf('acme', 120, 'first'));
    expect(indexes(kept)).toEqual(before);
    expect(answers(fresh, 'acme')).toEqual(answers(kept, 'acme'));
  });

  it('leaves the indexes as they were when it fails half-way', async () => {
    const store = await openStore();
    const before = indexes(store);
    const records = changesOf('acme', 50, 'half');
    let seen = 0;
    let midway: string[] = [];
    const failing: Changes = {
      count: records.count,
      each: (slice, fn, signal) =>
        records.each(
          slice,
          (change) => {
            if (++seen === 30) {
              midway = indexes(store);
              throw new Error('the remote went away half-way');
            }
            fn(change);
          },
          signal,
        ),
    };
    await expect(sync(store, 'acme', failing)).rejects.toThrow('the remote went away half-way');
    // Half-way, the sort indexes were set aside; after the rollback they are back.
    expect(midway.filter((index) => index.startsWith('datasets_by_'))).toEqual([]);
    expect(before.filter((index) => index.startsWith('datasets_by_')).length).toBeGreaterThan(10);
    expect(indexes(store)).toEqual(before);
    expect(store.value('SELECT count(*) FROM datasets')).toBe(0);
    // And the next sync writes as usual.
    await sync(store, 'acme', changesOf('acme', 50, 'half'));
    expect(indexes(store)).toEqual(before);
    expect(store.value('PRAGMA integrity_check')).toBe('ok');
  });
});
