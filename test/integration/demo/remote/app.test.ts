/**
 * The simulated remote over HTTP (inject): its key, paging while time moves, filters, parameter errors,
 * the single-dataset and tasks endpoints and the options that make it harder to talk to.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type SimulatorApp,
  type SimulatorOptions,
  buildSimulatorApp,
} from '../../../../electron/demo/remote/app';
import { createManualClock } from '../../../../electron/demo/remote/clock';
import { SimulatedOrg } from '../../../../electron/demo/remote/org';
import type { DatasetRecord, ListPage, TasksRecord } from '../../../../shared/schemas';
import { STAGES } from '../../../../shared/status';
import { matches } from '../../../helpers/reference';
import { parseFilter } from '../../../../shared/filter';

const NOW = Date.parse('2026-11-21T04:41:00.000Z');
const KEY = 'sim-test-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const LIST = '/v2/ops/health/datasets/deliveries';

const apps: SimulatorApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

function simulator(options: Partial<SimulatorOptions> = {}) {
  const clock = createManualClock(NOW);
  const app = buildSimulatorApp({ datasets: 120, seed: 3, clock, apiKey: KEY, ...options });
  apps.push(app);
  return { app, clock, org: app.simulator.org };
}

async function get<T = unknown>(app: SimulatorApp, url: string, headers: Record<string, string> = AUTH) {
  const response = await app.inject({ url, headers });
  return { status: response.statusCode, headers: response.headers, body: response.json<T>() };
}

function listUrl(params: Record<string, string | string[]>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    for (const item of [value].flat()) search.append(name, item);
  return `${LIST}?${search}`;
}

/** Walks next to the end, then previous back to the start; the clock moves between pages when asked. */
async function walk(
  app: SimulatorApp,
  params: Record<string, string | string[]>,
  between: () => void = () => {},
) {
  const forward: string[] = [];
  let page = (await get<ListPage>(app, listUrl(params))).body;
  expect(page.previousPageToken).toBe('');
  for (;;) {
    forward.push(...page.items.map((item) => item.datasetId));
    if (page.nextPageToken === '') break;
    between();
    page = (await get<ListPage>(app, listUrl({ ...params, pageToken: page.nextPageToken }))).body;
  }
  const backward: string[] = [];
  for (;;) {
    backward.unshift(...page.items.map((item) => item.datasetId));
    if (page.previousPageToken === '') break;
    between();
    page = (await get<ListPage>(app, listUrl({ ...params, pageToken: page.previousPageToken }))).body;
  }
  return { forward, backward };
}

describe('authentication', () => {
  it.each([
    ['no header', {}],
    ['another key', { authorization: 'Bearer nope' }],
    ['another scheme', { authorization: `Basic ${KEY}` }],
  ])('%s → 401 with a Bearer challenge, on every endpoint', async (_name, headers) => {
    const { app, org } = simulator();
    const datasetId = org.plan(0).datasetId;
    for (const url of [
      LIST,
      `/v2/ops/health/datasets/${datasetId}/deliveries`,
      '/v2/ops/health/deliveries/x/tasks',
    ]) {
      const response = await get(app, url, headers);
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.body).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    }
  });
});

describe('list', () => {
  it.each([7, 1000])(
    'pageSize %d: walking visits every visible dataset exactly once each way, while time moves',
    async (pageSize) => {
      const { app, clock, org } = simulator();
      for (const index of [0, 5, 6, 50, 119]) org.hide(org.plan(index).datasetId);
      const visible = Array.from({ length: org.size }, (_, i) => i)
        .filter((i) => org.isVisible(i))
        .map((i) => org.plan(i).datasetId);
      const { forward, backward } = await walk(app, { pageSize: String(pageSize) }, () =>
        clock.advance(3 * 3_600_000),
      );
      expect(forward).toEqual(visible);
      expect(backward).toEqual(visible);
    },
  );

  it('deliveryStatus.in.(FAILED,MISSING) returns exactly the FAILED and MISSING datasets', async () => {
    const { app } = simulator();
    const all = (await get<ListPage>(app, listUrl({ pageSize: '1000' }))).body.items;
    const expected = all
      .filter((r) => r.latestDeliveryStatus === 'FAILED' || r.latestDeliveryStatus === 'MISSING')
      .map((r) => r.datasetId);
    expect(expected.length).toBeGreaterThan(3);
    const { forward, backward } = await walk(app, {
      filter: 'deliveryStatus.in.(FAILED,MISSING)',
      pageSize: '7',
    });
    expect(forward).toEqual(expected);
    expect(backward).toEqual(expected);
  });

  it('filters as the reference matcher does, ANDed', async () => {
    const { app } = simulator();
    const all = (await get<ListPage>(app, listUrl({ pageSize: '1000' }))).body.items;
    for (const filters of [
      ['datasetName.ilike.*fx*'],
      ['deliveryStatus.neq.HEALTHY', 'dataProduct.ilike.*r*'],
      [`deliveryId.eq.${all[3]!.deliveryId}`],
      [`legacyDatasetId.in.(${all.find((r) => r.legacyDatasetId)!.legacyDatasetId},v1-none)`],
    ]) {
      const expected = all
        .filter((r) => filters.every((text) => matches(r, parseFilter(text))))
        .map((r) => r.datasetId);
      expect(expected.length, filters.join(' & ')).toBeGreaterThan(0);
      const { forward } = await walk(app, { filter: filters, pageSize: '5' });
      expect(forward, filters.join(' & ')).toEqual(expected);
    }
  });

  it('pages carry records with the asked number of events, at most historyDepth', async () => {
    const { app } = simulator({ historyDepth: 12 });
    const page = (await get<ListPage>(app, listUrl({ pageSize: '0' }))).body;
    expect(page.kind).toBe('ops#datasetHealthList');
    expect(page.items).toHaveLength(50);
    expect(page.items.every((r) => r.deliveryEventList.length === 10)).toBe(true);
    const deep = (await get<ListPage>(app, listUrl({ pageSize: '3', latestDeliveriesCount: '100' }))).body;
    expect(deep.items.every((r) => r.deliveryEventList.length === 12)).toBe(true);
  });

  it('accepts a valid sort but keeps index order (paging stays exact while statuses change)', async () => {
    const { app } = simulator();
    const plain = (await get<ListPage>(app, listUrl({ pageSize: '20' }))).body.items;
    const sorted = await get<ListPage>(app, listUrl({ pageSize: '20', sort: 'latestDeliveryStatus.desc' }));
    expect(sorted.status).toBe(200);
    expect(sorted.body.items.map((r) => r.datasetId)).toEqual(plain.map((r) => r.datasetId));
  });

  it.each([
    ['pageSize', { pageSize: '-1' }],
    ['pageSize', { pageSize: '1.5' }],
    ['pageSize', { pageSize: 'ten' }],
    ['pageSize', { pageSize: '1001' }],
    ['latestDeliveriesCount', { latestDeliveriesCount: 'x' }],
    ['filter', { filter: 'datasetName.gt.x' }],
    ['filter', { filter: 'deliveryStatus.eq.failed' }],
    ['sort', { sort: 'datasetName' }],
    ['pageToken', { pageToken: 'garbage' }],
  ])('bad %s → 400 naming it', async (field, params) => {
    const { app } = simulator();
    const response = await get(app, listUrl(params));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT', field });
  });

  it('maxPageSize bounds pageSize: above it is a 400', async () => {
    const { app } = simulator({ maxPageSize: 100 });
    expect((await get(app, listUrl({ pageSize: '100' }))).status).toBe(200);
    const refused = await get<{ message: string }>(app, listUrl({ pageSize: '101' }));
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/maximum of 100/);
  });

  it('a token replayed with other filters or against another org is a 400', async () => {
    const { app } = simulator();
    const first = (await get<ListPage>(app, listUrl({ pageSize: '5', filter: 'deliveryStatus.neq.FAILED' })))
      .body;
    const token = first.nextPageToken;
    expect((await get(app, listUrl({ pageToken: token, filter: 'deliveryStatus.neq.FAILED' }))).status).toBe(
      200,
    );
    expect((await get(app, listUrl({ pageToken: token }))).status).toBe(400);
    const other = simulator({ orgId: 'org-other' }).app;
    expect(
      (await get(other, listUrl({ pageToken: token, filter: 'deliveryStatus.neq.FAILED' }))).status,
    ).toBe(400);
  });

  it('rejectFilter: any filter is a 400, listing without one works', async () => {
    const { app } = simulator({ rejectFilter: true });
    const refused = await get(app, listUrl({ filter: 'deliveryStatus.eq.FAILED' }));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'filter' });
    expect((await get(app, listUrl({ pageSize: '5' }))).status).toBe(200);
  });

  // How fast is `npm run bench`'s business (the fast poll against the simulator): timings in a test
  // fail on a loaded machine.
  it('answers a 10k-dataset org filtered by status, and by a derived filter that matches nothing', async () => {
    const org = new SimulatedOrg({ datasets: 10_000, seed: 1 });
    const { app, clock } = simulator({ org });
    await get(app, listUrl({ filter: 'deliveryStatus.eq.FAILED' })); // computes the schedules once
    clock.advance(90_000);
    const page = await get<ListPage>(app, listUrl({ filter: 'deliveryStatus.in.(FAILED,MISSING)' }));
    expect(page.body.items).toHaveLength(50);
    expect(page.body.items.every((r) => ['FAILED', 'MISSING'].includes(r.latestDeliveryStatus!))).toBe(true);
    // A derived filter that matches nothing scans (and derives) all 10k.
    clock.advance(90_000);
    const none = await get<ListPage>(app, listUrl({ filter: 'deliveryId.eq.dlv-none' }));
    expect(none.body.items).toEqual([]);
  });
});

describe('one dataset', () => {
  it('by datasetId or legacyDatasetId, with run details when asked; unknown or hidden → 404', async () => {
    const { app, org } = simulator();
    const plan = Array.from({ length: org.size }, (_, i) => org.plan(i)).find((p) => p.legacyDatasetId)!;
    const byId = await get<DatasetRecord>(app, `/v2/ops/health/datasets/${plan.datasetId}/deliveries`);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(org.record(plan.index, NOW, 10));
    expect(byId.body.deliveryEventList[0]).not.toHaveProperty('runDetails');

    const byLegacy = await get<DatasetRecord>(
      app,
      `/v2/ops/health/datasets/${plan.legacyDatasetId}/deliveries?latestDeliveriesCount=3&includeRunDetails=TRUE`,
    );
    expect(byLegacy.body.datasetId).toBe(plan.datasetId);
    expect(byLegacy.body.deliveryEventList).toHaveLength(3);
    expect(byLegacy.body.deliveryEventList.every((e) => Array.isArray(e.runDetails))).toBe(true);

    expect(
      (await get(app, `/v2/ops/health/datasets/${plan.datasetId}/deliveries?includeRunDetails=yes`)).status,
    ).toBe(400);
    const unknown = await get(app, '/v2/ops/health/datasets/ds-nope/deliveries');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    org.hide(plan.datasetId);
    expect((await get(app, `/v2/ops/health/datasets/${plan.datasetId}/deliveries`)).status).toBe(404);
  });
});

describe('delivery tasks', () => {
  it('answers all four stages, run ids only with includeRunDetails; unknown → 404', async () => {
    const { app, org } = simulator();
    const failed = (await get<ListPage>(app, listUrl({ filter: 'deliveryStatus.eq.FAILED', pageSize: '1' })))
      .body.items[0]!;
    const url = `/v2/ops/health/deliveries/${failed.deliveryId}/tasks`;
    const plain = await get<TasksRecord>(app, url);
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.body)).toEqual([...STAGES]);
    const details = STAGES.flatMap((stage) => plain.body[stage].tasks.map((task) => task.details));
    expect(details.length).toBeGreaterThan(0);
    expect(details.every((d) => !('runId' in d) && d.deliveryId === failed.deliveryId)).toBe(true);

    const withRuns = await get<TasksRecord>(app, `${url}?includeRunDetails=1`);
    expect(withRuns.body).toEqual(org.tasks(failed.deliveryId!, NOW, true));
    expect(STAGES.some((stage) => withRuns.body[stage].tasks.some((task) => task.details.runId))).toBe(true);

    const unknown = await get(app, '/v2/ops/health/deliveries/dlv-0123456789abcdef/tasks');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('options', () => {
  it('extraFields: every record, event and task carries x-sim', async () => {
    const { app } = simulator({ extraFields: true });
    const page = (await get<ListPage>(app, listUrl({ pageSize: '3' }))).body;
    for (const record of page.items) {
      expect(record).toHaveProperty('x-sim', 1);
      for (const event of record.deliveryEventList) expect(event).toHaveProperty('x-sim', 1);
    }
    const record = page.items[0]!;
    const one = (await get<DatasetRecord>(app, `/v2/ops/health/datasets/${record.datasetId}/deliveries`))
      .body;
    expect(one).toHaveProperty('x-sim', 1);
    const tasks = (await get<TasksRecord>(app, `/v2/ops/health/deliveries/${record.deliveryId}/tasks`)).body;
    expect(tasks).toHaveProperty('x-sim', 1);
    expect(tasks.ingest.tasks[0]).toHaveProperty('x-sim', 1);
  });

  it('errorRate 1: every request gets a transient fault (503, 500 or 429 with Retry-After), seeded', async () => {
    const statuses = async () => {
      const { app } = simulator({ errorRate: 1 });
      const seen: number[] = [];
      for (let i = 0; i < 40; i++) {
        const response = await get<{ code: string }>(app, listUrl({ pageSize: '1' }));
        seen.push(response.status);
        if (response.status === 429) expect(response.headers['retry-after']).toBe('1');
      }
      return seen;
    };
    const first = await statuses();
    expect(new Set(first)).toEqual(new Set([503, 500, 429]));
    expect(first.filter((s) => s === 503).length).toBeGreaterThan(first.length / 2);
    expect(await statuses()).toEqual(first);
  });

  it('latencyMs: every answer waits on the injected sleep; the log records each request', async () => {
    const slept: number[] = [];
    const { app, clock } = simulator({
      latencyMs: 250,
      sleep: async (ms) => void slept.push(ms),
    });
    await get(app, listUrl({ pageSize: '1' }));
    clock.advance(1000);
    await get(app, '/v2/ops/health/datasets/ds-nope/deliveries', {});
    expect(slept).toEqual([250, 250]);
    expect(app.simulator.requests).toEqual([
      { method: 'GET', url: `${LIST}?pageSize=1`, status: 200, at: NOW },
      { method: 'GET', url: '/v2/ops/health/datasets/ds-nope/deliveries', status: 401, at: NOW + 1000 },
    ]);
  });

  it('an unknown path is a JSON 404', async () => {
    const { app } = simulator();
    const response = await get(app, '/v1/whatever');
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});
