/** `sync --once` and `sources` in-process, against the simulator on a real loopback port (docs/architecture.md#the-cli). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../electron/demo/remote/clock';
import { type RemoteSimulator, startRemoteSimulator } from '../../../electron/demo/remote/server';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';

const KEY = 'cli-remote-key';
const env = { DATASET_HEALTH_REMOTE_KEY: KEY };
const NOW = new Date('2026-11-21T04:41:00.000Z');
let simulator: RemoteSimulator;

beforeEach(async () => {
  simulator = await startRemoteSimulator({
    port: 0,
    apiKey: KEY,
    datasets: 30,
    seed: 3,
    clock: createManualClock(NOW.getTime()),
  });
});
afterEach(async () => {
  await simulator.close();
  removeTempDirs();
});

const exportOrg = async (dataDir: string): Promise<{ datasets: { datasetId: string }[] }> =>
  JSON.parse((await cli(['export', '--org', 'acme', '-', '--data-dir', dataDir])).stdout) as {
    datasets: { datasetId: string }[];
  };

describe('sync --once', () => {
  it('mirrors the remote org, with progress and a summary on stderr, exit 0', async () => {
    const dataDir = tempDir();
    const run = await cli(
      ['sync', '--once', '--org', 'acme', '--remote', simulator.url, '--data-dir', dataDir],
      env,
      NOW,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^Syncing org acme from http:\/\/127\.0\.0\.1:\d+…\n/);
    expect(run.stderr).toMatch(/crawl: page 1, 30 datasets/);
    expect(run.stderr).toMatch(
      /Synced 30 datasets into org acme in [\d.]+ s: 30 written, 0 removed, 0 skipped/,
    );
    expect((await exportOrg(dataDir)).datasets).toHaveLength(30);
  });

  it('fails with one line and exit 1 when the remote refuses the key; nothing is stored', async () => {
    const dataDir = tempDir();
    const run = await cli(
      ['sync', '--once', '--org', 'acme', '--remote', simulator.url, '--data-dir', dataDir],
      { DATASET_HEALTH_REMOTE_KEY: 'wrong' },
      NOW,
    );
    expect(run.code).toBe(1);
    const last = run.stderr.trim().split('\n').at(-1)!;
    expect(last).toMatch(
      /^dataset-health: sync failed: API key rejected by 127\.0\.0\.1:\d+ \(HTTP 401\).*\(stored data unchanged\)$/,
    );
    expect((await cli(['export', '--org', 'acme', '-', '--data-dir', dataDir])).code).toBe(1);
  });

  it('keeps the previous data when a later sync fails', async () => {
    const dataDir = tempDir();
    const args = ['sync', '--once', '--org', 'acme', '--remote', simulator.url, '--data-dir', dataDir];
    expect((await cli(args, env, NOW)).code).toBe(0);
    const before = await exportOrg(dataDir);
    simulator.faults.inject({ kind: 'non-json' });
    const run = await cli(args, env, NOW);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/sync failed: .*not JSON.*\(stored data unchanged\)/);
    expect(await exportOrg(dataDir)).toEqual(before);
  });

  it.each([
    [['sync', '--org', 'acme', '--remote', 'http://127.0.0.1:1'], 2, /required option '--once'/],
    [['sync', '--once', '--remote', 'http://127.0.0.1:1'], 2, /required option '--org/],
    [['sync', '--once', '--org', 'acme'], 1, /no source is configured for org 'acme': pass --remote <url>/],
    [['sync', '--once', '--org', 'acme', '--remote', 'ftp://x'], 1, /only http and https/],
    [['sync', '--once', '--org', 'acme', '--remote', 'http://health.example.com'], 1, /use https/],
    [['sync', '--once', '--org', 'bad org', '--remote', 'http://x'], 1, /not a valid org id/],
  ])('%j → exit %i', async (args, code, message) => {
    const run = await cli([...args, '--data-dir', tempDir()], env);
    expect(run.code).toBe(code);
    expect(run.stderr).toMatch(message);
  });

  it('without a key in the environment says where to put one', async () => {
    const run = await cli(
      ['sync', '--once', '--org', 'acme', '--remote', simulator.url, '--data-dir', tempDir()],
      {},
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/no remote API key: set DATASET_HEALTH_REMOTE_KEY/);
  });
});

describe('sources', () => {
  it('add, list and remove; sync --once then needs no --remote', async () => {
    const dataDir = tempDir();
    const add = await cli(
      ['sources', 'add', '--org', 'acme', '--remote', `${simulator.url}/`, '--data-dir', dataDir],
      env,
    );
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toMatch(/Source acme: org acme from http:\/\/127\.0\.0\.1:\d+\. A remote key is set/);
    const list = await cli(['sources', 'list', '--json', '--data-dir', dataDir]);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ id: 'acme', orgId: 'acme', baseUrl: simulator.url, enabled: true }),
    ]);
    expect(list.stdout).not.toContain('apiKey');
    const table = await cli(['sources', 'list', '--data-dir', dataDir]);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID +ORG +NAME +REMOTE +ENABLED$/);
    expect(table.stdout.split('\n')[1]).toMatch(
      new RegExp(`^acme +acme +acme +${simulator.url.replace(/\./g, '\\.')} +yes$`),
    );
    const sync = await cli(['sync', '--once', '--org', 'acme', '--data-dir', dataDir], env, NOW);
    expect(sync.code, sync.stderr).toBe(0);
    expect((await cli(['sources', 'remove', 'acme', '--data-dir', dataDir])).code).toBe(0);
    const again = await cli(['sources', 'remove', 'acme', '--data-dir', dataDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no source 'acme'/);
  });

  it('refuses a second source for the same org, and bad URLs', async () => {
    const dataDir = tempDir();
    expect(
      (await cli(['sources', 'add', '--org', 'acme', '--remote', 'https://a.example', '--data-dir', dataDir]))
        .code,
    ).toBe(0);
    const second = await cli([
      'sources',
      'add',
      '--id',
      'other',
      '--org',
      'acme',
      '--remote',
      'https://b.example',
      '--data-dir',
      dataDir,
    ]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/org 'acme' is already mirrored by source 'acme'/);
    const bad = await cli([
      'sources',
      'add',
      '--org',
      'x',
      '--remote',
      'https://k:s@a.example?q=1',
      '--data-dir',
      dataDir,
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/without credentials, query or fragment/);
  });
});
