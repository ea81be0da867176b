/**
 * docs/storage.md, docs/architecture.md#crawl: a crawl commits whole or not at all, so a process killed in the middle of one —
 * while pages arrive, or while the crawl is being written — leaves the previous database intact.
 */
import { afterEach, expect, it } from 'vitest';
import { createManualClock } from '../../../electron/demo/remote/clock';
import { type RemoteSimulator, startRemoteSimulator } from '../../../electron/demo/remote/server';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { killChildren, spawnCli, waitFor } from '../../helpers/process';

const KEY = 'kill-test-key';
const HOUR = 3_600_000;
let simulator: RemoteSimulator | undefined;

afterEach(async () => {
  killChildren();
  await simulator?.close();
  simulator = undefined;
  removeTempDirs();
});

it.each([
  ['while pages arrive', /crawl: page \d+/],
  ['while the crawl is being written', /crawl: saving/],
])(
  'a sync killed %s leaves the previous database intact',
  async (_when, moment) => {
    const clock = createManualClock(Date.UTC(2026, 10, 21, 4, 41));
    // Small pages, each a little slow: the crawl takes long enough to be caught in the middle.
    simulator = await startRemoteSimulator({
      port: 0,
      apiKey: KEY,
      datasets: 600,
      seed: 5,
      clock,
      maxPageSize: 50,
      latencyMs: 40,
    });
    const dataDir = tempDir();
    const env = { DATASET_HEALTH_REMOTE_KEY: KEY };
    const args = ['sync', '--once', '--org', 'acme', '--remote', simulator.url, '--data-dir', dataDir];
    const first = await cli(args, env, new Date(clock.now()));
    expect(first.code, first.stderr).toBe(0);
    const exportArgs = ['export', '--org', 'acme', '-', '--data-dir', dataDir];
    const before = (await cli(exportArgs)).stdout;
    expect(JSON.parse(before).datasets).toHaveLength(600);

    clock.advance(12 * HOUR);
    const sync = spawnCli(args, env);
    await waitFor(sync.stderr, moment, sync, 60_000);
    sync.child.kill('SIGKILL');
    await sync.exited;

    // The directory opens (the stale lock is taken over), passes its check, and holds the old data.
    const after = await cli(exportArgs);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).not.toMatch(/backup|corrupt/i);
    expect(after.stdout).toBe(before);
  },
  90_000,
);
