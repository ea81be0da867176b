/** `dataset-health serve` as a real process: a real HTTP client on a real port, signals, runtime file, lock. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DatasetRecord } from '../../shared/schemas';
import { cli, removeTempDirs, tempDir } from '../helpers/cli';
import { killChildren, spawnCli, waitFor } from '../helpers/process';

afterEach(() => {
  killChildren();
  removeTempDirs();
});

describe('serve', () => {
  it('serves the API on a free port, writes runtime.json, and on SIGTERM persists, cleans up and exits 0', async () => {
    const dataDir = tempDir();
    const serve = spawnCli(['serve', '--demo', '--port', '0', '--data-dir', dataDir]);
    const [, url] = await waitFor(
      serve.stdout,
      /Local API listening on (http:\/\/127\.0\.0\.1:\d+)\n/,
      serve,
    );
    const [, key] = await waitFor(serve.stderr, /Demo API key \(shown once\): (dhk_\S+)/, serve);
    expect(serve.stdout()).toBe(`Local API listening on ${url}\n`);
    // The built-in demo: a simulated remote in-process, mirrored by the sync loop.
    await waitFor(serve.stderr, /sync demo: crawl ok, 500 datasets read/, serve);

    const runtime = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as {
      apiUrl: string;
      pid: number;
    };
    expect(runtime).toMatchObject({ apiUrl: url, pid: serve.child.pid });

    const response = await fetch(
      `${url}/v2/ops/health/datasets/deliveries?filter=deliveryStatus.eq.FAILED&pageSize=5`,
      {
        headers: { Authorization: `Bearer ${key}` },
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const page = (await response.json()) as { items: DatasetRecord[] };
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.every((r) => r.latestDeliveryStatus === 'FAILED')).toBe(true);

    const unauthenticated = await fetch(`${url}/v2/ops/health/datasets/deliveries`);
    expect(unauthenticated.status).toBe(401);

    // A second writer is refused while serve holds the directory, naming the holder.
    const second = await cli(['keys', 'create', '--org', 'demo', '--data-dir', dataDir]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`in use by process ${serve.child.pid} \\(serve`));

    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);
    expect(existsSync(join(dataDir, 'dataset-health.lock'))).toBe(false);

    // What serve generated was persisted: the key still works from the file.
    const list = await cli(['keys', 'list', '--json', '--data-dir', dataDir]);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ orgId: 'demo', name: 'demo' })]);
  });

  it('--rate-limit sets the per-key rate: beyond its burst a key gets 429 with Retry-After', async () => {
    const dataDir = tempDir();
    const serve = spawnCli(['serve', '--demo', '--port', '0', '--rate-limit', '1', '--data-dir', dataDir]);
    const [, url] = await waitFor(serve.stdout, /listening on (http:\/\/\S+)\n/, serve);
    const [, key] = await waitFor(serve.stderr, /Demo API key \(shown once\): (dhk_\S+)/, serve);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${url}/v2/ops/health/datasets/deliveries?pageSize=1`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      statuses.push(response.status);
      if (response.status === 429)
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(statuses).toEqual([200, 200, 429]);
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
  });

  it('a port in use is a one-line failure with exit 1', async () => {
    const dataDir = tempDir();
    const first = spawnCli(['serve', '--port', '0', '--data-dir', dataDir]);
    const [, port] = await waitFor(first.stdout, /127\.0\.0\.1:(\d+)/, first);
    const second = spawnCli(['serve', '--port', port!, '--data-dir', tempDir()]);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toMatch(new RegExp(`^dataset-health: port ${port} is in use`));
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
  });

  it('a stale lock from a killed serve is taken over', async () => {
    const dataDir = tempDir();
    const killed = spawnCli(['serve', '--port', '0', '--data-dir', dataDir]);
    await waitFor(killed.stdout, /listening/, killed);
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(existsSync(join(dataDir, 'dataset-health.lock'))).toBe(true);
    const run = await cli(['keys', 'create', '--org', 'acme', '--data-dir', dataDir]);
    expect(run.code, run.stderr).toBe(0);
  });
});
