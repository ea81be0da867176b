/**
 * Hostile imports (issue 15 items 3 and 4), as tables in the manner of security regression tests: each
 * row is a file given to `import`, the exit code and message it must get, and a check that the data
 * directory did not change (the org's export and the database file, byte for byte).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { fixtureRecords } from '../../helpers/fixtures';
import { killChildren, spawnCli } from '../../helpers/process';

const ORG = 'acme';

/** A data directory holding a small org, and what it holds, to compare after every refusal. */
async function seeded(): Promise<{ dataDir: string; state: () => Promise<[string, Buffer]> }> {
  const dataDir = tempDir();
  const good = join(tempDir(), 'good.json');
  writeFileSync(good, JSON.stringify({ datasets: fixtureRecords(5, 3, 'keep') }));
  const run = await cli(['import', '--org', ORG, good, '--data-dir', dataDir]);
  expect(run.code, run.stderr).toBe(0);
  const state = async (): Promise<[string, Buffer]> => {
    const exported = await cli(['export', '--org', ORG, '-', '--data-dir', dataDir]);
    expect(exported.code, exported.stderr).toBe(0);
    return [exported.stdout, readFileSync(join(dataDir, 'health.sqlite'))];
  };
  return { dataDir, state };
}

afterEach(() => killChildren());
afterAll(() => removeTempDirs());

describe('what import reads', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir();
    writeFileSync(join(dir, 'over.json'), `{"datasets": []}${' '.repeat(1024 * 1024)}`);
    if (process.platform !== 'win32') execFileSync('mkfifo', [join(dir, 'fifo')]);
  });

  const ROWS: { name: string; path: () => string; args?: string[]; message: RegExp; skip?: boolean }[] = [
    {
      name: 'a device that never ends (/dev/zero)',
      path: () => '/dev/zero',
      message: /\/dev\/zero is a device; import reads regular files only \(nothing was imported\)/,
      skip: process.platform === 'win32',
    },
    {
      name: 'a fifo with no writer',
      path: () => join(dir, 'fifo'),
      message: /is a fifo \(named pipe\); import reads regular files only \(nothing was imported\)/,
      skip: process.platform === 'win32',
    },
    {
      name: 'a directory',
      path: () => dir,
      message: /is a directory; import reads regular files only \(nothing was imported\)/,
    },
    {
      name: 'a file over --max-size',
      path: () => join(dir, 'over.json'),
      args: ['--max-size', '1'],
      message:
        /over\.json is 1\.0 MiB, over the import limit of 1 MiB; --max-size <MiB> raises it \(up to 500\) \(nothing was imported\)/,
    },
    {
      name: 'a missing file',
      path: () => join(dir, 'missing.json'),
      message: /cannot read .*missing\.json: ENOENT.*\(nothing was imported\)/,
    },
  ];
  it.each(ROWS.filter((row) => !row.skip))('$name is refused at once, changing nothing', async (row) => {
    const { dataDir, state } = await seeded();
    const before = await state();
    const run = await cli(['import', '--org', ORG, row.path(), ...(row.args ?? []), '--data-dir', dataDir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(row.message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(await state()).toEqual(before);
  });

  it('--max-size is an integer from 1 to 500 (usage error otherwise)', async () => {
    const run = await cli(['import', '--org', ORG, join(dir, 'over.json'), '--max-size', '501']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--max-size.*expected an integer from 1 to 500/);
  });

  it.skipIf(process.platform === 'win32')(
    'the real CLI given a fifo answers at once instead of waiting for a writer',
    async () => {
      const { dataDir, state } = await seeded();
      const before = await state();
      const child = spawnCli(['import', '--org', ORG, join(dir, 'fifo'), '--data-dir', dataDir]);
      const code = await Promise.race([
        child.exited,
        new Promise((resolve) => setTimeout(() => resolve('hung'), 15_000)),
      ]);
      expect(code, child.stderr()).toBe(1);
      expect(child.stderr()).toMatch(/is a fifo \(named pipe\); import reads regular files only/);
      expect(await state()).toEqual(before);
    },
    30_000,
  );
});

describe.skipIf(process.platform !== 'linux')('signals', () => {
  let big: string;
  beforeAll(() => {
    // 20,000 datasets of 30 deliveries (~110 MB): reading and checking take a few hundred ms, the
    // write several seconds.
    big = join(tempDir(), 'big.json');
    const parts: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const events = Array.from({ length: 30 }, (_, j) => ({
        deliveryId: `big-${i}-${j}`,
        status: 'HEALTHY',
        deliveryDeadline: new Date(Date.UTC(2026, 10, 20 - j, 4)).toISOString(),
        processingDeadlineConfig: { cronExpression: '0 4 * * *', timezone: 'Europe/London' },
      }));
      parts.push(
        JSON.stringify({
          datasetId: `big-${i}`,
          datasetName: `Big ${i}`,
          deliveryId: `big-${i}-0`,
          deliveryEventList: events,
        }),
      );
    }
    writeFileSync(big, `{"datasets":[${parts.join(',')}]}`);
  });

  /** Whether the process has the file open (Linux: its /proc/<pid>/fd links). */
  function reading(pid: number, file: string): boolean {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`) === file;
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  }

  /** Sends `signal` once the CLI reads the file (then it still parses and checks it), or later. */
  async function interrupted(signal: NodeJS.Signals, afterReadMs: number) {
    const { dataDir, state } = await seeded();
    const before = await state();
    const child = spawnCli(['import', '--org', ORG, big, '--data-dir', dataDir]);
    while (!reading(child.child.pid!, big)) {
      if (child.child.exitCode !== null) throw new Error(`exited early: ${child.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await new Promise((resolve) => setTimeout(resolve, afterReadMs));
    const sent = Date.now();
    child.child.kill(signal);
    const code = await child.exited;
    return { code, stderr: child.stderr(), ms: Date.now() - sent, before, after: await state(), dataDir };
  }

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s while the file is read and checked: exit 1 at once, nothing changed, the lock released',
    async (signal) => {
      const run = await interrupted(signal, 0);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`import stopped by ${signal} \\(nothing was imported\\)`));
      expect(run.ms).toBeLessThan(3_000);
      expect(run.after).toEqual(run.before);
      expect(existsSync(join(run.dataDir, 'dataset-health.lock'))).toBe(false);
    },
    60_000,
  );

  it('SIGTERM during the write: the import completes (all of it is stored) and says so', async () => {
    const run = await interrupted('SIGTERM', 2_000);
    const exported = JSON.parse(run.after[0]) as { datasets: { datasetId: string }[] };
    if (run.code === 1) {
      // Still checking when the signal came (a slow machine): nothing stored.
      expect(run.stderr).toMatch(/stopped by SIGTERM \(nothing was imported\)/);
      expect(run.after).toEqual(run.before);
    } else {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/Imported 20000 datasets/);
      expect(run.stderr).toMatch(
        /SIGTERM arrived while the import was being written; the import is complete/,
      );
      expect(exported.datasets).toHaveLength(20_005);
    }
  }, 120_000);
});
