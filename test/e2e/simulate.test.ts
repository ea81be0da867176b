/** `dataset-health simulate-remote` as a real process: its URL line, the key from the env, SIGINT. */
import { afterEach, describe, expect, it } from 'vitest';
import type { ListPage } from '../../shared/schemas';
import { killChildren, spawnCli, waitFor } from '../helpers/process';

afterEach(killChildren);

describe('simulate-remote', () => {
  it('serves a live org on a free port with the key from the environment, and exits 0 on SIGINT', async () => {
    const key = 'e2e-remote-key';
    const simulator = spawnCli(['simulate-remote', '--port', '0', '--datasets', '40', '--speed', '60'], {
      DATASET_HEALTH_REMOTE_KEY: key,
    });
    const [, url] = await waitFor(
      simulator.stdout,
      /Remote simulator listening on (http:\/\/127\.0\.0\.1:\d+)\n/,
      simulator,
    );
    expect(simulator.stdout()).toBe(`Remote simulator listening on ${url}\n`);

    const response = await fetch(`${url}/v2/ops/health/datasets/deliveries?pageSize=1000`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
    const page = (await response.json()) as ListPage;
    expect(page.items).toHaveLength(40);
    expect(page.nextPageToken).toBe('');
    expect((await fetch(`${url}/v2/ops/health/datasets/deliveries`)).status).toBe(401);

    await waitFor(simulator.stderr, /sync --once --org ORG --remote http/, simulator);
    expect(simulator.stderr()).not.toContain(key); // a key from the environment is never echoed
    simulator.child.kill('SIGINT');
    expect(await simulator.exited).toBe(0);
  });
});
