/** The datasets store against the real engine: pages in order, counts for the chips, newer queries win. */
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from 'vue';
import { RPC_CLIENT } from '../../../../renderer/src/rpc/client';
import { FIRST_PAGE, useDatasetsState } from '../../../../renderer/src/state/datasets';
import { ENGINE_ORG, type EngineClient, engineClient } from '../../../helpers/engineClient';

let engine: EngineClient;

function store() {
  const app = createApp({});
  app.provide(RPC_CLIENT, engine.client);
  const pinia = createPinia();
  app.use(pinia);
  setActivePinia(pinia);
  return app.runWithContext(() => useDatasetsState());
}

beforeEach(async () => {
  engine = await engineClient({ datasets: 700 });
});
afterEach(() => engine.close());

describe('datasets store', () => {
  it('loads every row of the query, the first page small, and the status counts', async () => {
    const datasets = store();
    await datasets.load({ orgId: ENGINE_ORG, filters: [], search: '', sort: 'latestDeliveryStatus.asc' });
    expect(datasets.rows).toHaveLength(700);
    const rowCalls = engine.calls.filter((c) => c.name === 'datasets.rows');
    expect((rowCalls[0]!.request as { pageSize: number }).pageSize).toBe(FIRST_PAGE);
    const total = Object.values(datasets.counts!.byStatus).reduce((a, b) => a + b, 0);
    expect(total).toBe(700);
    expect(datasets.counts!.total).toBe(700);
    // Status order: FAILED first, then MISSING, DELIVERED_LATE, HEALTHY.
    const order = ['FAILED', 'MISSING', 'DELIVERED_LATE', 'HEALTHY'];
    const ranks = datasets.rows.map((row) => order.indexOf(row.status ?? ''));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(datasets.loading).toBe(false);
    expect(datasets.loadingMore).toBe(false);
  });

  it('a newer query supersedes one still loading: only its rows are shown', async () => {
    const datasets = store();
    const first = datasets.load({ orgId: ENGINE_ORG, filters: [], search: '', sort: '' });
    const second = datasets.load({
      orgId: ENGINE_ORG,
      filters: ['deliveryStatus.eq.FAILED'],
      search: '',
      sort: '',
    });
    await Promise.all([first, second]);
    expect(datasets.rows.length).toBe(datasets.counts!.byStatus.FAILED);
    expect(datasets.rows.every((row) => row.status === 'FAILED')).toBe(true);
  });

  it('a bad filter is an error message, and the rows stay as they were', async () => {
    const datasets = store();
    await datasets.load({ orgId: ENGINE_ORG, filters: [], search: '', sort: '' });
    await datasets.load({ orgId: ENGINE_ORG, filters: ['supplierId.gt.x'], search: '', sort: '' });
    expect(datasets.error).toMatch(/operator 'gt' is not allowed for supplierId/);
    expect(datasets.rows).toHaveLength(700);
  });
});
