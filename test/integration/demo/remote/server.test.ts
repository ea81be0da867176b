/** The simulator on a real loopback port: fetch, a dropped connection, a hung request and close. */
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../../electron/demo/remote/clock';
import { type RemoteSimulator, startRemoteSimulator } from '../../../../electron/demo/remote/server';
import type { ListPage, TasksRecord } from '../../../../shared/schemas';

const NOW = Date.parse('2026-11-21T04:41:00.000Z');
const KEY = 'sim-test-key';
const headers = { authorization: `Bearer ${KEY}` };

const running: RemoteSimulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((simulator) => simulator.close()));
});

async function start(port = 0): Promise<RemoteSimulator> {
  const simulator = await startRemoteSimulator({
    port,
    datasets: 30,
    seed: 2,
    clock: createManualClock(NOW),
    apiKey: KEY,
  });
  running.push(simulator);
  return simulator;
}

describe('startRemoteSimulator', () => {
  it('serves the three endpoints on 127.0.0.1 to a real client', async () => {
    const simulator = await start();
    expect(simulator.url).toBe(`http://127.0.0.1:${simulator.port}`);
    const response = await fetch(`${simulator.url}/v2/ops/health/datasets/deliveries?pageSize=10`, {
      headers,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const page = (await response.json()) as ListPage;
    expect(page.items).toHaveLength(10);
    const tasks = await fetch(
      `${simulator.url}/v2/ops/health/deliveries/${page.items[0]!.deliveryId}/tasks`,
      {
        headers,
      },
    );
    expect(Object.keys((await tasks.json()) as TasksRecord)).toEqual([
      'ingest',
      'normalize',
      'process',
      'dispatch',
    ]);
    expect((await fetch(`${simulator.url}/v2/ops/health/datasets/deliveries`)).status).toBe(401);
    expect(simulator.requests.map((entry) => entry.status)).toEqual([200, 200, 401]);
  });

  it('a reset is a network error for the client; the next request works', async () => {
    const simulator = await start();
    simulator.faults.inject({ kind: 'reset' });
    const url = `${simulator.url}/v2/ops/health/datasets/deliveries?pageSize=1`;
    await expect(fetch(url, { headers })).rejects.toThrow(TypeError);
    expect((await fetch(url, { headers })).status).toBe(200);
  });

  it('close() does not wait for a hung request: its connection is dropped', async () => {
    const simulator = await start();
    simulator.faults.inject({ kind: 'hang' });
    const hung = fetch(`${simulator.url}/v2/ops/health/datasets/deliveries`, { headers }).then(
      () => 'answered',
      () => 'dropped',
    );
    // The hung request has arrived once the log has it.
    while (simulator.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await simulator.close();
    expect(await hung).toBe('dropped');
  });

  it('a port in use is a clear error', async () => {
    const first = await start();
    await expect(start(first.port)).rejects.toThrow(`port ${first.port} is in use on 127.0.0.1`);
  });
});
