/** `dataset-health serve` as a real process: a real HTTP client on a real port, signals, runtime file, lock. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DatasetRecord } from '../../shared/schemas';
import { cli, removeTempDirs, tempDir } from '../helpers/cli';
import { databaseBytes, queryImage } from '../helpers/databaseFiles';
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

    // The CLI beside it, as separate processes: the running serve does the work (the control channel).
    const keyCli = spawnCli([
      'keys',
      'create',
      '--org',
      'live-demo',
      '--name',
      'beside',
      '--data-dir',
      dataDir,
    ]);
    expect(await keyCli.exited, keyCli.stderr()).toBe(0);
    expect(keyCli.stdout()).toMatch(/^dhk_[A-Za-z0-9_-]{43}\n$/);
    expect(keyCli.stderr()).toMatch(/^Created key key_\w+ \('beside'\) for org live-demo\. Store it now/);
    const beside = await fetch(`${url}/v2/ops/health/datasets/deliveries?pageSize=1`, {
      headers: { Authorization: `Bearer ${keyCli.stdout().trim()}` },
    });
    expect(beside.status).toBe(200);
    const syncCli = spawnCli(['sync', '--once', '--org', 'live-demo', '--data-dir', dataDir]);
    expect(await syncCli.exited, syncCli.stderr()).toBe(0);
    expect(syncCli.stderr()).toMatch(/Synced 500 datasets into org live-demo in [\d.]+ s/);
    expect(existsSync(join(dataDir, 'control.json'))).toBe(true);

    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);
    expect(existsSync(join(dataDir, 'dataset-health.lock'))).toBe(false);
    expect(existsSync(join(dataDir, 'control.json'))).toBe(false);

    // What serve generated and did for the CLI was persisted: the keys are in the file.
    const list = await cli(['keys', 'list', '--json', '--data-dir', dataDir]);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ orgId: 'live-demo', name: 'demo' }),
      expect.objectContaining({ orgId: 'live-demo', name: 'beside' }),
    ]);
  });

  it('a clean stop (SIGINT) of a small mirror leaves health.sqlite holding it, for any SQLite reader', async () => {
    const dataDir = tempDir();
    const serve = spawnCli(['serve', '--demo', '--port', '0', '--data-dir', dataDir]);
    await waitFor(serve.stderr, /sync demo: crawl ok, 500 datasets read/, serve);
    serve.child.kill('SIGINT');
    expect(await serve.exited).toBe(0);
    // The image's bytes alone (sql.js, no journal replayed): the org's datasets and the demo's key.
    expect(await queryImage(dataDir, "SELECT count(*) FROM datasets WHERE org_id = 'live-demo'")).toEqual([
      [500],
    ]);
    expect(await queryImage(dataDir, "SELECT name FROM api_keys WHERE org_id = 'live-demo'")).toEqual([
      ['demo'],
    ]);
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

  it('syncs every configured source: the local API answers with the remote org, read through for tasks', async () => {
    const key = 'e2e-remote-key';
    const simulator = spawnCli(['simulate-remote', '--port', '0', '--datasets', '40'], {
      DATASET_HEALTH_REMOTE_KEY: key,
    });
    const [, remote] = await waitFor(simulator.stdout, /listening on (http:\/\/\S+)\n/, simulator);
    const dataDir = tempDir();
    expect(
      (await cli(['sources', 'add', '--org', 'acme', '--remote', remote!, '--data-dir', dataDir])).code,
    ).toBe(0);
    const serve = spawnCli(['serve', '--port', '0', '--data-dir', dataDir], {
      DATASET_HEALTH_LOG_LEVEL: 'debug',
      DATASET_HEALTH_REMOTE_KEY: key,
    });
    await waitFor(serve.stdout, /listening on (http:\/\/\S+)\n/, serve);
    await waitFor(serve.stderr, /sync acme: crawl ok, 40 datasets read, 40 written/, serve);
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    // The remote key never reaches the output, the log or the data directory.
    expect(serve.stdout() + serve.stderr()).not.toContain(key);
    expect(databaseBytes(dataDir).includes(Buffer.from(key))).toBe(false);
    // What was synced is in the data directory: a script's key and query see it.
    const localKey = (await cli(['keys', 'create', '--org', 'acme', '--data-dir', dataDir])).stdout.trim();
    const again = spawnCli(['serve', '--port', '0', '--poll-seconds', '3600', '--data-dir', dataDir], {
      DATASET_HEALTH_REMOTE_KEY: key,
    });
    const [, url] = await waitFor(again.stdout, /listening on (http:\/\/\S+)\n/, again);
    const response = await fetch(`${url}/v2/ops/health/datasets/deliveries?pageSize=100`, {
      headers: { Authorization: `Bearer ${localKey}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-synced-at')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const page = (await response.json()) as { items: DatasetRecord[] };
    expect(page.items).toHaveLength(40);
    // A healthy delivery's tasks were never synced: the local API reads them through from the remote.
    const healthy = page.items.find((r) => r.latestDeliveryStatus === 'HEALTHY')!;
    const tasks = await fetch(
      `${url}/v2/ops/health/deliveries/${healthy.deliveryEventList[0]!.deliveryId}/tasks`,
      {
        headers: { Authorization: `Bearer ${localKey}` },
      },
    );
    expect(tasks.status).toBe(200);
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
    simulator.child.kill('SIGINT');
    expect(await simulator.exited).toBe(0);
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
    const run = await cli(['keys', 'create', '--org', 'acme', '--new-org', '--data-dir', dataDir]);
    expect(run.code, run.stderr).toBe(0);
  });

  it('--on-failed runs the command with each alert as JSON on stdin, and logs the alert', async () => {
    const dataDir = tempDir();
    const out = join(dataDir, 'alerts.jsonl');
    // The built-in demo starts three simulated hours back: its first sync finds FAILED datasets.
    const serve = spawnCli(
      ['serve', '--demo', '--port', '0', '--data-dir', dataDir, '--on-failed', 'cat >> "$ALERTS_OUT"'],
      {
        ALERTS_OUT: out,
      },
    );
    const [, title] = await waitFor(
      serve.stderr,
      /alert: (\d+ datasets? (?:is|are) FAILED) — First sync of live-demo/,
      serve,
    );
    await expect
      .poll(() => (existsSync(out) ? readFileSync(out, 'utf8') : ''), { timeout: 20_000 })
      .toMatch(/\n$/);
    const [first] = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(first).toMatchObject({
      kind: 'summary',
      cause: 'first-sync',
      orgId: 'live-demo',
      title,
      target: { view: 'failed', orgId: 'live-demo' },
    });
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
  });
});
