/**
 * loadDemo's delivery count: the generator's 30 per dataset by default, or as many as asked (the
 * benchmark's statistics org keeps 100 each, the store's retention).
 */
import { describe, expect, it } from 'vitest';
import { loadDemo } from '../../../electron/demo/load';
import { Store } from '../../../electron/store/database';

const NOW = new Date('2026-11-21T04:41:00.000Z');

async function eventsPerDataset(deliveriesPerDataset?: number): Promise<number[]> {
  const store = await Store.open({ dataDir: null });
  try {
    loadDemo(store, { orgId: 'acme', datasets: 5, seed: 1, now: NOW, deliveriesPerDataset });
    return store
      .all('SELECT count(*) AS n FROM events GROUP BY dataset_pk ORDER BY dataset_pk')
      .map((row) => Number(row.n));
  } finally {
    await store.close();
  }
}

describe('loadDemo deliveriesPerDataset', () => {
  it('writes 30 deliveries per dataset by default', async () => {
    expect(await eventsPerDataset()).toEqual([30, 30, 30, 30, 30]);
  });

  it('writes as many as asked, up to the store’s retention of 100', async () => {
    expect(await eventsPerDataset(100)).toEqual([100, 100, 100, 100, 100]);
  });
});
