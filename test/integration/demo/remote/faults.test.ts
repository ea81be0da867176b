/** Each queued fault kind through inject: what the client sees, and that it is consumed once. */
import { afterEach, describe, expect, it } from 'vitest';
import { type SimulatorApp, buildSimulatorApp } from '../../../../electron/demo/remote/app';
import { createManualClock } from '../../../../electron/demo/remote/clock';
import type { DatasetRecord, ListPage } from '../../../../shared/schemas';

const NOW = Date.parse('2026-11-21T04:41:00.000Z');
const KEY = 'sim-test-key';
const LIST = '/v2/ops/health/datasets/deliveries';

const apps: SimulatorApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

function simulator(): SimulatorApp {
  const app = buildSimulatorApp({ datasets: 40, seed: 9, clock: createManualClock(NOW), apiKey: KEY });
  apps.push(app);
  return app;
}

const request = (app: SimulatorApp, url = `${LIST}?pageSize=5`) =>
  app.inject({ url, headers: { authorization: `Bearer ${KEY}` } });

describe('faults', () => {
  it('status: that status in the error shape, with Retry-After when given; consumed `times` times', async () => {
    const app = simulator();
    app.simulator.faults.inject({ kind: 'status', status: 503, retryAfter: 7 }, { times: 2 });
    for (let i = 0; i < 2; i++) {
      const response = await request(app);
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('7');
      expect(response.json()).toMatchObject({ status: 503, code: 'UNAVAILABLE' });
    }
    expect((await request(app)).statusCode).toBe(200);
    expect(app.simulator.requests.map((entry) => entry.status)).toEqual([503, 503, 200]);
  });

  it('route: only requests to that endpoint get it', async () => {
    const app = simulator();
    app.simulator.faults.inject({ kind: 'status', status: 500 }, { route: 'tasks' });
    const page = (await request(app)).json<ListPage>();
    const datasetUrl = `/v2/ops/health/datasets/${page.items[0]!.datasetId}/deliveries`;
    expect((await request(app, datasetUrl)).statusCode).toBe(200);
    const tasksUrl = `/v2/ops/health/deliveries/${page.items[0]!.deliveryId}/tasks`;
    expect((await request(app, tasksUrl)).statusCode).toBe(500);
    expect((await request(app, tasksUrl)).statusCode).toBe(200);
  });

  it('a bad key is still a 401: faults come after authentication', async () => {
    const app = simulator();
    app.simulator.faults.inject({ kind: 'status', status: 503 });
    expect((await app.inject({ url: LIST })).statusCode).toBe(401);
    expect(app.simulator.faults.pending).toBe(1);
  });

  it('hang: no answer while other requests are served, until the app closes', async () => {
    const app = simulator();
    app.simulator.faults.inject({ kind: 'hang' });
    let settled = false;
    const hung = request(app).then(
      () => (settled = true),
      () => (settled = true),
    );
    expect((await request(app)).statusCode).toBe(200);
    expect((await request(app)).statusCode).toBe(200);
    expect(settled).toBe(false);
    await app.close();
    await hung;
    expect(settled).toBe(true);
    expect(app.simulator.requests.map((entry) => entry.status)).toEqual([0, 200, 200]);
  });

  it('reset: the connection drops without an answer', async () => {
    const app = simulator();
    app.simulator.faults.inject({ kind: 'reset' });
    await expect(request(app)).rejects.toThrow();
    expect((await request(app)).statusCode).toBe(200);
  });

  it('non-json: 200 with an HTML body', async () => {
    const app = simulator();
    app.simulator.faults.inject({ kind: 'non-json' });
    const response = await request(app);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(() => JSON.parse(response.body)).toThrow();
    expect((await request(app)).json<ListPage>().items).toHaveLength(5);
  });

  it('wrong-shape: 200 JSON whose items is not an array', async () => {
    const app = simulator();
    app.simulator.faults.inject({ kind: 'wrong-shape' });
    const response = await request(app);
    expect(response.statusCode).toBe(200);
    expect(Array.isArray(response.json<{ items: unknown }>().items)).toBe(false);
    expect(Array.isArray((await request(app)).json<ListPage>().items)).toBe(true);
  });

  it('repeat-token: the next page request gets back the token it sent, once', async () => {
    const app = simulator();
    app.simulator.faults.inject({ kind: 'repeat-token' });
    const first = (await request(app)).json<ListPage>(); // no token to repeat: unaffected
    expect(first.nextPageToken).not.toBe('');
    const url = `${LIST}?pageSize=5&pageToken=${first.nextPageToken}`;
    const looped = (await request(app, url)).json<ListPage>();
    expect(looped.nextPageToken).toBe(first.nextPageToken);
    const again = (await request(app, url)).json<ListPage>();
    expect(again.items).toEqual(looped.items);
    expect(again.nextPageToken).not.toBe(first.nextPageToken);
  });

  it('drop-dataset-id: one record of the page (or the one dataset) lacks datasetId', async () => {
    const app = simulator();
    app.simulator.faults.inject({ kind: 'drop-dataset-id' }, { route: 'list' });
    app.simulator.faults.inject({ kind: 'drop-dataset-id' }, { route: 'dataset' });
    const items = (await request(app)).json<ListPage>().items;
    expect(items.filter((item) => !('datasetId' in item))).toHaveLength(1);
    expect(items.filter((item) => typeof item.datasetId === 'string')).toHaveLength(4);
    const datasetId = items.find((item) => item.datasetId)!.datasetId;
    const one = (await request(app, `/v2/ops/health/datasets/${datasetId}/deliveries`)).json<DatasetRecord>();
    expect(one).not.toHaveProperty('datasetId');
    expect(one.datasetName).toBeTruthy();
    expect(app.simulator.faults.pending).toBe(0);
  });

  it('clear() drops what is queued', async () => {
    const app = simulator();
    app.simulator.faults.inject({ kind: 'status', status: 500 }, { times: 3 });
    app.simulator.faults.clear();
    expect((await request(app)).statusCode).toBe(200);
  });
});
