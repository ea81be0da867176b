/**
 * Changed records past the memory bound wait on disk for the cycle's commit (electron/sync/changes.ts,
 * the memory budget (docs/architecture.md#performance-budgets)), against the remote simulator on a real loopback port. The bound is
 * lowered through the runner's `spool` option instead of building a large org. A spooling sync stores
 * exactly what one in memory stores; its file is owner-only and gone when the cycle ends, whether it
 * succeeded, failed or was stopped, and a failure leaves the mirror exactly as it was; an ordinary
 * poll writes no file; a file left by a killed process goes at the next crawl.
 */
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { CycleEvent } from '../../../shared/sync';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { killChildren, spawnScript, waitFor } from '../../helpers/process';
import {
  SIM_KEY,
  allRecords,
  closeBenches,
  syncBench,
  type BenchOptions,
  type SyncBench,
} from '../../helpers/sync';

afterEach(async () => {
  killChildren();
  await closeBenches();
  removeTempDirs();
});

const HOUR = 3_600_000;
const SPOOL_LINE = /more changed datasets than memory keeps/;

interface SpoolWatch {
  dir: string;
  /** For each time a cycle started spooling: the spool folder's files then, with their modes. */
  spooled: { name: string; mode: number }[][];
}

/** A bench whose runner spools changed records past `memoryBytes` into a folder of its own. */
async function spoolingBench(
  memoryBytes: number | undefined,
  options: BenchOptions = {},
): Promise<SyncBench & { watch: SpoolWatch }> {
  const watch: SpoolWatch = { dir: tempDir('dh-spool-'), spooled: [] };
  const bench = await syncBench({
    ...options,
    runner: {
      spool: { dir: watch.dir, memoryBytes },
      onProgress: (line) => {
        if (!SPOOL_LINE.test(line)) return;
        watch.spooled.push(
          readdirSync(watch.dir).map((name) => ({
            name,
            mode: statSync(`${watch.dir}/${name}`).mode & 0o777,
          })),
        );
      },
    },
  });
  return Object.assign(bench, { watch });
}

/** Waits until the runner is inside its commit's transaction, then stops it. */
async function stopDuringCommit(bench: SyncBench): Promise<void> {
  while (!bench.store.busy) await new Promise((resolve) => setImmediate(resolve));
  await bench.runner.stop();
}

describe('changes past the memory bound', () => {
  it('a sync that spools stores exactly what one in memory stores, cycle after cycle', async () => {
    // 20 kB keeps two records of the first crawl (100 deliveries each) in memory and spools the rest.
    const spooling = await spoolingBench(20_000, { simulator: { datasets: 120 } });
    const inMemory = await syncBench({ simulator: { datasets: 120 } });
    const both = async (step: (bench: SyncBench) => Promise<CycleEvent | void>) => {
      const [spooled, kept] = [await step(spooling), await step(inMemory)];
      expect(spooled).toEqual(kept);
      expect(spooling.snapshot()).toBe(inMemory.snapshot());
      expect(readdirSync(spooling.watch.dir)).toEqual([]);
      return spooled;
    };
    const first = await both((bench) => bench.runner.runCycle('crawl'));
    expect(first).toMatchObject({ outcome: 'ok', firstSync: true, counts: { written: 120 } });
    expect(spooling.watch.spooled).toEqual([[{ name: expect.stringMatching(/\.ndjson$/), mode: 0o600 }]]);

    await both(async (bench) => bench.clock.advance(9 * HOUR));
    const later = await both((bench) => bench.runner.runCycle('crawl'));
    expect(later!.transitions.length).toBeGreaterThan(0);
    expect(spooling.watch.spooled).toHaveLength(2);
    await both(async (bench) => bench.clock.advance(5 * HOUR));
    const poll = await both((bench) => bench.runner.runCycle('poll'));
    expect(poll!.counts.written).toBeGreaterThan(0);

    const [gone] = await allRecords(spooling.remote);
    const spooledBefore = spooling.watch.spooled.length;
    const removal = await both(async (bench) => {
      bench.simulator.org.hide(gone!.datasetId);
      return bench.runner.runCycle('crawl');
    });
    expect(removal!.counts.removed).toBe(1);
    expect(spooling.watch.spooled).toHaveLength(spooledBefore + 1);
  });

  it('an ordinary poll keeps its changes in memory: no spool file is written', async () => {
    const bench = await spoolingBench(undefined, { simulator: { datasets: 120 } });
    await bench.runner.runCycle('crawl');
    bench.clock.advance(5 * HOUR);
    const folder = statSync(bench.watch.dir).mtimeMs;
    const poll = await bench.runner.runCycle('poll');
    expect(poll).toMatchObject({ outcome: 'ok', kind: 'poll' });
    expect(poll.counts.written).toBeGreaterThan(0);
    expect(bench.watch.spooled).toEqual([]);
    // No file was created and removed in between: that would have changed the folder.
    expect(statSync(bench.watch.dir).mtimeMs).toBe(folder);
  });

  it('a crawl that fails after it started spooling leaves the mirror as it was and no file', async () => {
    // Pages of 50 (the remote refuses 1000): the second page is not JSON, after the first was spooled.
    const bench = await spoolingBench(0, { simulator: { maxPageSize: 50 } });
    await bench.runner.runCycle('crawl');
    bench.clock.advance(6 * HOUR);
    const before = bench.snapshot();
    bench.watch.spooled.length = 0;
    bench.simulator.faults.inject({ kind: 'non-json' }, { route: 'list', skip: 2 });
    const event = await bench.runner.runCycle('crawl');
    expect(event).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/not JSON/) });
    expect(bench.watch.spooled).toHaveLength(1);
    expect(bench.snapshot()).toBe(before);
    expect(readdirSync(bench.watch.dir)).toEqual([]);
  });

  it('a crawl stopped while it saves spooled records rolls back and removes its file', async () => {
    const bench = await spoolingBench(0, { simulator: { datasets: 120 } });
    await bench.runner.runCycle('crawl');
    bench.clock.advance(9 * HOUR);
    const before = bench.snapshot();
    const cycle = bench.runner.runCycle('crawl');
    await stopDuringCommit(bench);
    expect(await cycle).toMatchObject({ outcome: 'failed', error: 'sync stopped' });
    expect(bench.watch.spooled).toHaveLength(2);
    expect(bench.snapshot()).toBe(before);
    expect(readdirSync(bench.watch.dir)).toEqual([]);
  });

  it('a spool that cannot be written fails the crawl with where and why, the mirror as it was', async () => {
    const bench = await spoolingBench(0);
    await bench.runner.runCycle('crawl');
    bench.clock.advance(9 * HOUR);
    const before = bench.snapshot();
    // The spool folder is now a file: nothing can be created in it.
    rmSync(bench.watch.dir, { recursive: true });
    writeFileSync(bench.watch.dir, '');
    const event = await bench.runner.runCycle('crawl');
    expect(event.outcome).toBe('failed');
    expect(event.error).toContain(`could not keep the changed datasets on disk in ${bench.watch.dir}`);
    expect(bench.snapshot()).toBe(before);
    expect(bench.runner.state.phase).toBe('error');
  });

  it('a spool left by a killed process is removed by the next crawl', async () => {
    // A slow remote: the other process is still crawling when it is killed.
    const bench = await spoolingBench(undefined, {
      simulator: { datasets: 200, maxPageSize: 50, latencyMs: 100 },
    });
    const crawler = spawnScript('test/helpers/spool-crawler.ts', [
      bench.simulator.url,
      SIM_KEY,
      bench.watch.dir,
    ]);
    await waitFor(crawler.stdout, SPOOL_LINE, crawler, 30_000);
    crawler.child.kill('SIGKILL');
    await crawler.exited;
    const left = readdirSync(bench.watch.dir);
    expect(left).toEqual([expect.stringMatching(new RegExp(`-${crawler.child.pid}-.*\\.ndjson$`))]);

    expect((await bench.runner.runCycle('crawl')).outcome).toBe('ok');
    expect(readdirSync(bench.watch.dir)).toEqual([]);
  });
});
