/** Builds a store with fixture orgs and an API app over it, for inject() tests. */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApi, type ApiOptions } from '../../electron/api/app';
import { createApiKey } from '../../electron/store/tables/apiKeys';
import { Store } from '../../electron/store/database';
import { importSnapshot } from '../../electron/store/snapshot/importSnapshot';
import type { DatasetRecord } from '../../shared/schemas';
import { fixtureRecords, fixtureTasks } from './fixtures';

export const PORT = 47800;
export const HOST = `127.0.0.1:${PORT}`;
export const NOW = new Date('2026-11-21T04:41:00.000Z');

export interface ApiFixture {
  store: Store;
  app: FastifyInstance;
  records: DatasetRecord[];
  otherRecords: DatasetRecord[];
  key: string;
  otherKey: string;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function apiFixture(options: Partial<ApiOptions> = {}, count = 120): Promise<ApiFixture> {
  const store = await Store.open({ dataDir: null });
  const records = fixtureRecords(count, 7, 'ds');
  const otherRecords = fixtureRecords(20, 99, 'other');
  const failed = records[0]!;
  importSnapshot(
    store,
    'acme',
    {
      datasets: records,
      tasks: new Map([[failed.deliveryId!, fixtureTasks(failed.deliveryId!, failed.datasetId)]]),
    },
    { now: NOW },
  );
  importSnapshot(store, 'globex', { datasets: otherRecords, tasks: new Map() }, { now: NOW });
  const key = createApiKey(store, 'acme', 'tests', NOW).key;
  const otherKey = createApiKey(store, 'globex', 'tests', NOW).key;
  const app = await buildApi({
    store,
    port: PORT,
    now: () => NOW,
    logger: false,
    // Contract tests send thousands of requests; the limiter has its own tests.
    rateLimit: { perSecond: 1e6, burst: 1e6 },
    ...options,
  });
  return {
    store,
    app,
    records,
    otherRecords,
    key,
    otherKey,
    get: (url, headers = {}) =>
      app.inject({ method: 'GET', url, headers: { host: HOST, authorization: `Bearer ${key}`, ...headers } }),
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}

export interface Page {
  items: DatasetRecord[];
  nextPageToken: string;
  previousPageToken: string;
  kind: string;
}

/** Walks every page forwards, then back from the last page, returning the ids seen each way. */
export async function walk(
  fixture: ApiFixture,
  query: string,
  pageSize: number,
): Promise<{ forward: string[]; backward: string[]; pages: number }> {
  const base = `/v2/ops/health/datasets/deliveries?latestDeliveriesCount=0&pageSize=${pageSize}${query ? `&${query}` : ''}`;
  const forward: string[] = [];
  let response = await fixture.get(base);
  let page = response.json() as Page;
  if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`);
  if (page.previousPageToken !== '') throw new Error('the first page has a previous page');
  let pages = 1;
  forward.push(...page.items.map((r) => r.datasetId));
  while (page.nextPageToken) {
    response = await fixture.get(`${base}&pageToken=${encodeURIComponent(page.nextPageToken)}`);
    page = response.json() as Page;
    forward.push(...page.items.map((r) => r.datasetId));
    if (++pages > 10_000) throw new Error('paging does not end');
  }
  const backward: string[] = [...page.items.map((r) => r.datasetId)].reverse();
  while (page.previousPageToken) {
    response = await fixture.get(`${base}&pageToken=${encodeURIComponent(page.previousPageToken)}`);
    page = response.json() as Page;
    backward.push(...[...page.items.map((r) => r.datasetId)].reverse());
    if (++pages > 20_000) throw new Error('paging does not end');
  }
  return { forward, backward: backward.reverse(), pages };
}
