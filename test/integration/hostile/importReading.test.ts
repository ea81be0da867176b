/**
 * How `import` reads its file (control/commands/importFile.ts, issue 25): up to the size it had when
 * opened, giving up on a read that brings nothing for 30 s, never reading much past a record's limit,
 * and saying how far it is once it runs long. The command runs as the CLI or a running instance runs
 * it, on a real store, with the file handle, the timers and the clock injected: a stall is a read that
 * never resolves and a timer the test fires, progress is a clock the test moves.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandContext } from '../../../electron/control/command';
import type { ImportHandle } from '../../../electron/control/commands/importFile';
import {
  type ImportDeps,
  NODE_IMPORT_DEPS,
  exportData,
  importCommand,
} from '../../../electron/control/commands/snapshot';
import { hungReads } from '../../../electron/control/hungReads';
import { Store } from '../../../electron/store/database';
import { SNAPSHOT_LIMITS } from '../../../electron/store/snapshot/snapshotLimits';
import { DEFAULT_SETTINGS } from '../../../shared/settings';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { fixtureRecords } from '../../helpers/fixtures';
import { killChildren, spawnScript } from '../../helpers/process';

const ORG = 'acme';
const MiB = 1024 * 1024;

let store: Store;
let dataDir: string;
const context = (): CommandContext => ({
  store,
  dataDir,
  now: () => new Date('2026-11-21T04:41:00.000Z'),
  settings: async () => DEFAULT_SETTINGS,
});

/** The import as the CLI runs it, with `deps` in place of the file system's and Node's timers. */
async function runImport(
  file: string,
  deps: Partial<ImportDeps> = {},
  maxSize?: number,
): Promise<{ error: Error | null; stderr: string }> {
  let stderr = '';
  const out = { stdout: () => {}, stderr: (text: string) => void (stderr += text) };
  const args = {
    org: ORG,
    file: 'snapshot.json',
    path: file,
    retention: 30,
    ...(maxSize ? { maxSize } : {}),
  };
  try {
    await importCommand({ ...NODE_IMPORT_DEPS, ...deps }).run(context(), args, out);
    return { error: null, stderr };
  } catch (error) {
    return { error: error as Error, stderr };
  }
}

/** The org as export writes it: compared before and after a refusal. */
async function exported(): Promise<string> {
  let text = '';
  await exportData.run(
    context(),
    { org: ORG, path: '-' },
    { stdout: (t) => void (text += t), stderr: () => {} },
  );
  return text;
}

/** A file handle that counts what it reads, and may be told how to read (`read` gets the real one). */
function counted(
  read?: (
    real: ImportHandle['read'],
    call: number,
    ...a: Parameters<ImportHandle['read']>
  ) => ReturnType<ImportHandle['read']>,
) {
  const seen = { bytes: 0, reads: 0, closed: false };
  const openFile = async (path: string): Promise<ImportHandle> => {
    const real = await open(path, 'r');
    return {
      stat: () => real.stat(),
      read: async (buffer, offset, length, position) => {
        const call = seen.reads++;
        const result = await (read
          ? read(real.read.bind(real), call, buffer, offset, length, position)
          : real.read(buffer, offset, length, position));
        seen.bytes += result.bytesRead;
        return result;
      },
      close: async () => {
        seen.closed = true;
        await real.close();
      },
    };
  };
  return { seen, open: openFile };
}

/** A snapshot of `count` datasets, a record per line as export writes it. */
function snapshotFile(count: number, prefix = 'r'): string {
  const path = join(tempDir(), `${prefix}.json`);
  const records = fixtureRecords(count, 3, prefix).map((r) => JSON.stringify(r));
  writeFileSync(path, `{"datasets":[\n${records.join(',\n')}\n]}\n`);
  return path;
}

beforeAll(async () => {
  dataDir = tempDir();
  store = await Store.open({ dataDir });
  const seeded = await runImport(snapshotFile(5, 'keep'));
  expect(seeded.error).toBeNull();
});
afterAll(async () => {
  killChildren();
  await store.close();
  removeTempDirs();
});

describe('a read that brings nothing', () => {
  /** Timers the test fires: `after` is noted, and runs when the test says. */
  function manualTimers() {
    const pending: { ms: number; fn: () => void; cancelled: boolean }[] = [];
    return {
      pending,
      after: (ms: number, fn: () => void) => {
        const timer = { ms, fn, cancelled: false };
        pending.push(timer);
        return () => void (timer.cancelled = true);
      },
      /** Fires every timer still armed. */
      fire: () => pending.filter((t) => !t.cancelled).forEach((t) => t.fn()),
    };
  }

  it.each([0, 2])(
    'read %i never returns: after 30 s the import is refused with the reason, nothing changed',
    async (hangsAt) => {
      const before = await exported();
      const timers = manualTimers();
      const file = counted((real, call, ...a) => (call === hangsAt ? new Promise(() => {}) : real(...a)));
      const hungBefore = hungReads();
      const running = runImport(snapshotFile(3_000, 'stall'), { open: file.open, after: timers.after });
      // Every read is watched for 30 s; the one that hangs is the one whose timer is still armed.
      while (file.seen.reads <= hangsAt) await new Promise((resolve) => setTimeout(resolve, 1));
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(timers.pending.every((t) => t.ms === 30_000)).toBe(true);
      expect(timers.pending.filter((t) => !t.cancelled)).toHaveLength(1);
      timers.fire();
      const run = await running;
      expect(run.error?.message).toBe('no data from snapshot.json for 30 s (nothing was imported)');
      // The command did not wait on the read (it never ends); the process is told one hung.
      expect(hungReads()).toBe(hungBefore + 1);
      expect(await exported()).toBe(before);
    },
  );

  it('a slow read that brings data before 30 s is waited for', async () => {
    const timers = manualTimers();
    const file = counted(async (real, call, ...a) => {
      if (call === 1) await new Promise((resolve) => setTimeout(resolve, 50));
      return real(...a);
    });
    const run = await runImport(snapshotFile(2_000, 'slow'), { open: file.open, after: timers.after });
    expect(run.error).toBeNull();
    expect(timers.pending.every((t) => t.cancelled)).toBe(true);
    expect(file.seen.closed).toBe(true);
  });
});

describe.skipIf(process.platform !== 'linux')('a read stuck in the kernel', () => {
  it('the CLI says why and ends, although the read never returns', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const path = snapshotFile(10, 'stuck');
    const child = spawnScript('test/helpers/hungImport.ts', [join(dir, 'data'), path, fifo]);
    await child.exited;
    expect(child.stderr()).toBe('dataset-health: no data from hung.json for 0.2 s (nothing was imported)\n');
    // `process.exit` would wait for the stuck thread: the process ends itself with SIGKILL.
    expect(child.child.signalCode).toBe('SIGKILL');
  }, 60_000);
});

describe('what is read', () => {
  it('a never-ending string: refused once its record passes 64 MiB, after reading little more of a 200 MiB file', async () => {
    const before = await exported();
    const path = join(tempDir(), 'endless.json');
    const fd = openSync(path, 'w');
    writeSync(fd, '{"datasets":[{"datasetId":"');
    const xs = Buffer.alloc(MiB, 'x');
    for (let i = 0; i < 200; i++) writeSync(fd, xs);
    closeSync(fd);
    const file = counted();
    const run = await runImport(path, { open: file.open });
    expect(run.error?.message).toBe(
      'snapshot.json: $.datasets[0] (line 1, column 14): over 64 MiB of JSON text, the limit for one record (nothing was imported)',
    );
    // The chunk that passed the limit, and the one read ahead while it was scanned.
    expect(file.seen.bytes).toBeLessThanOrEqual(SNAPSHOT_LIMITS.recordBytes + 2 * MiB);
    expect(await exported()).toBe(before);
  });

  it('limits passed by the command reach the reader (tests and a smaller bound use them)', async () => {
    const file = counted();
    const run = await runImport(snapshotFile(50, 'lim'), { open: file.open, limits: { recordBytes: 100 } });
    expect(run.error?.message).toMatch(
      /^snapshot\.json: \$\.datasets\[0\] \(line 2, column 1\): over 100 bytes of JSON text, the limit for one record/,
    );
  });

  it('a file that grows while it is read is refused: it is read up to the size it had when opened', async () => {
    const before = await exported();
    const path = snapshotFile(3_000, 'grows');
    const file = counted(async (real, call, ...a) => {
      if (call === 1) appendFileSync(path, ' '.repeat(10));
      return real(...a);
    });
    const run = await runImport(path, { open: file.open });
    expect(run.error?.message).toMatch(
      /^snapshot\.json grew while being read \(it was \d+ bytes when opened\); import it once it is complete \(nothing was imported\)$/,
    );
    expect(await exported()).toBe(before);
  });

  it('--max-size is an upper bound when given, of any size up to 1 TiB, and no bound when not', async () => {
    const path = snapshotFile(2_000, 'sized');
    const small = await runImport(path, {}, 1);
    expect(small.error?.message).toMatch(
      /^snapshot\.json is \d\.\d MiB, over the import limit of 1 MiB set by --max-size \(nothing was imported\)$/,
    );
    expect((await runImport(path, {}, 600)).error).toBeNull();
    expect((await runImport(path, {}, 1024 * 1024)).error).toBeNull();
    expect((await runImport(path)).error).toBeNull();
  });
});

describe('progress on stderr', () => {
  /** A clock the test moves, and the progress timer's callback, which the test calls. */
  function movedClock() {
    const clock = { ms: 0, ticks: [] as (() => void)[], stopped: 0 };
    return {
      clock,
      deps: {
        clock: () => clock.ms,
        every: (ms: number, fn: () => void) => {
          expect(ms).toBeLessThanOrEqual(2_000);
          clock.ticks.push(fn);
          return () => void clock.stopped++;
        },
      },
      /** Moves the clock and wakes the reporter. */
      at: (ms: number) => {
        clock.ms = ms;
        clock.ticks.forEach((fn) => fn());
      },
    };
  }

  it('a long import prints a line every 2 s once it has run 2 s: records, MB of the total, rate, time left', async () => {
    const path = snapshotFile(6_000, 'long');
    const moved = movedClock();
    // Each read comes a second after the one before.
    const file = counted(async (real, call, ...a) => {
      moved.at(call * 1_000);
      return real(...a);
    });
    const run = await runImport(path, { open: file.open, ...moved.deps });
    expect(run.error).toBeNull();
    const lines = run.stderr.trim().split('\n');
    const progress = lines.slice(0, -1);
    expect(lines.at(-1)).toBe('Imported 6000 datasets and the tasks of 0 deliveries into org acme.');
    expect(file.seen.reads).toBeGreaterThanOrEqual(6);
    // Reads at 0, 1, 2 … s: a line at 2 s, 4 s, … (and none at the odd seconds).
    expect(progress).toHaveLength(Math.floor((file.seen.reads - 1) / 2));
    for (const line of progress)
      expect(line).toMatch(
        /^Importing snapshot\.json: [\d,]+ records, (\d+\.\d of \d+\.\d MiB, \d+\.\d MiB\/s, about \d+ s left|\d+\.\d MiB read in \d+ s; checking the whole file and writing it)$/,
      );
    expect(progress[0]).toMatch(/ of \d+\.\d MiB, \d+\.\d MiB\/s, about \d+ s left$/);
    expect(moved.clock.stopped).toBe(1);
  });

  it('once the whole file is read, the line says the checks and the writing are under way', async () => {
    const path = snapshotFile(1_000, 'tail');
    const moved = movedClock();
    const file = counted(async (real, call, ...a) => {
      const result = await real(...a);
      // The end of the file (a read of nothing): the reporter wakes 3 s in.
      if (result.bytesRead === 0) moved.at(3_000);
      return result;
    });
    const run = await runImport(path, { open: file.open, ...moved.deps });
    expect(run.error).toBeNull();
    const [line, done] = run.stderr.trim().split('\n');
    expect(line).toMatch(
      /^Importing snapshot\.json: [\d,]+ records, \d+\.\d MiB read in 3 s; checking the whole file and writing it$/,
    );
    expect(done).toMatch(/^Imported 1000 datasets/);
  });

  it('a short import prints only what it printed before', async () => {
    const moved = movedClock();
    const file = counted(async (real, call, ...a) => {
      moved.at(call * 500);
      return real(...a);
    });
    const run = await runImport(snapshotFile(200, 'short'), { open: file.open, ...moved.deps });
    expect(run.error).toBeNull();
    expect(run.stderr).toBe('Imported 200 datasets and the tasks of 0 deliveries into org acme.\n');
  });
});
