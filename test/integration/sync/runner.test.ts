/** One source's loop (docs/architecture.md#sync): when it crawls and when it polls, its state, stopping, a missing key. */
import { afterEach, describe, expect, it } from 'vitest';
import { saveSource } from '../../../electron/store/tables/sources';
import { SourcesSync } from '../../../electron/sync/sourcesSync';
import { SourceRunner } from '../../../electron/sync/runner';
import type { SourceState } from '../../../shared/sync';
import { SIM_KEY, START, closeBenches, syncBench } from '../../helpers/sync';

afterEach(closeBenches);

const MINUTE = 60_000;
/** Lets the loop's queued cycle run to its end. */
const settle = (bench: { cycles: unknown[] }, count: number) =>
  (async () => {
    for (let i = 0; i < 400 && bench.cycles.length < count; i++) await new Promise((r) => setTimeout(r, 10));
  })();

describe('source loop', () => {
  it('starts with a crawl, polls every poll interval, and crawls again once the crawl interval has passed', async () => {
    const bench = await syncBench();
    bench.runner.start();
    expect(bench.scheduled).toEqual([0]);
    bench.fireTimer();
    await settle(bench, 1);
    expect(bench.cycles.map((c) => c.kind)).toEqual(['crawl']);
    expect(bench.scheduled.at(-1)).toBe(MINUTE);
    expect(bench.runner.state.nextRunAt).toBe(new Date(START + MINUTE).toISOString());

    bench.clock.advance(MINUTE);
    bench.fireTimer();
    await settle(bench, 2);
    bench.clock.advance(15 * MINUTE);
    bench.fireTimer();
    await settle(bench, 3);
    expect(bench.cycles.map((c) => [c.kind, c.outcome])).toEqual([
      ['crawl', 'ok'],
      ['poll', 'ok'],
      ['crawl', 'ok'],
    ]);
  });

  it('reports its state: syncing with progress, then idle with the last success and counts', async () => {
    const bench = await syncBench();
    const seen: SourceState[] = [];
    const runner = new SourceRunner({ ...runnerOptions(bench), onState: (state) => seen.push(state) });
    const event = await runner.runCycle('crawl');
    expect(seen[0]).toMatchObject({ phase: 'syncing', activity: 'crawl: starting' });
    expect(seen.some((s) => /^crawl: page 1, 60 datasets$/.test(s.activity ?? ''))).toBe(true);
    expect(runner.state).toMatchObject({
      sourceId: 'acme-remote',
      orgId: 'acme',
      phase: 'idle',
      activity: null,
      lastSuccessAt: new Date(START).toISOString(),
      lastError: null,
      lastCounts: event.counts,
    });
    // A runner made later (a restart) knows the last success from the store.
    const restarted = new SourceRunner(runnerOptions(bench));
    expect(restarted.state).toMatchObject({ phase: 'idle', lastSuccessAt: new Date(START).toISOString() });
    await runner.stop();
  });

  it('stopping in the middle of a crawl rolls it back and ends the loop', async () => {
    const bench = await syncBench({ simulator: { latencyMs: 30, maxPageSize: 50 } });
    const before = bench.snapshot();
    const cycle = bench.runner.runCycle('crawl');
    await new Promise((r) => setTimeout(r, 45));
    await bench.runner.stop();
    const event = await cycle;
    expect(event).toMatchObject({ outcome: 'failed', error: 'sync stopped' });
    expect(bench.snapshot()).toBe(before);
  });

  it('without an API key the source is stopped with a message saying where to set one', async () => {
    const bench = await syncBench();
    const runner = new SourceRunner({
      ...runnerOptions(bench),
      apiKey: null,
      missingKeyHint: 'set DATASET_HEALTH_REMOTE_KEY',
    });
    const event = await runner.runCycle('crawl');
    expect(event.error).toBe("no API key for source 'acme-remote': set DATASET_HEALTH_REMOTE_KEY");
    expect(runner.state).toMatchObject({ phase: 'error', stopped: true });
    expect(bench.simulator.requests).toHaveLength(0);
  });
});

describe('sources sync', () => {
  it('polls at the intervals it is given (serve --poll-seconds), else every 60 s', async () => {
    const bench = await syncBench();
    const timersSet: number[] = [];
    const timers = {
      setTimeout: (_fn: () => void, ms: number) => timersSet.push(ms),
      clearTimeout: () => {},
    };
    for (const intervals of [{ pollMs: 3_600_000 }, undefined]) {
      const sourcesSync = new SourcesSync({
        store: bench.store,
        secrets: { apiKeyFor: () => SIM_KEY, hint: '' },
        now: () => new Date(bench.clock.now()),
        timers,
        intervals,
      });
      sourcesSync.start();
      await sourcesSync.syncNow();
      await sourcesSync.stop();
    }
    expect(timersSet).toEqual([0, 3_600_000, 0, 60_000]);
  });

  it('runs every enabled source, reports cycles and states, and syncs on demand', async () => {
    const bench = await syncBench();
    saveSource(
      bench.store,
      { id: 'off', orgId: 'other', baseUrl: 'http://127.0.0.1:9', enabled: false },
      new Date(START),
    );
    const sourcesSync = new SourcesSync({
      store: bench.store,
      secrets: { apiKeyFor: () => SIM_KEY, hint: '' },
      now: () => new Date(bench.clock.now()),
      timers: { setTimeout: () => 0, clearTimeout: () => {} },
    });
    const cycles: string[] = [];
    const phases: string[] = [];
    sourcesSync.onCycle((event) => cycles.push(`${event.sourceId} ${event.kind} ${event.outcome}`));
    const unsubscribe = sourcesSync.onState((state) => phases.push(state.phase));
    sourcesSync.start();
    expect(sourcesSync.states().map((s) => s.sourceId)).toEqual(['acme-remote']);
    await sourcesSync.syncNow();
    expect(cycles).toEqual(['acme-remote crawl ok']);
    expect(phases).toContain('syncing');
    unsubscribe();
    const heard = phases.length;
    await sourcesSync.syncNow('acme-remote');
    expect(cycles).toHaveLength(2);
    expect(phases).toHaveLength(heard);
    await sourcesSync.stop();
    expect(sourcesSync.states()).toEqual([]);
  });
});

function runnerOptions(bench: Awaited<ReturnType<typeof syncBench>>) {
  return {
    store: bench.store,
    source: bench.source,
    apiKey: SIM_KEY,
    missingKeyHint: '',
    now: () => new Date(bench.clock.now()),
    intervals: { pollMs: MINUTE, crawlMs: 15 * MINUTE },
    deliveriesPerDataset: 100,
    timers: { setTimeout: () => 0, clearTimeout: () => {} },
  };
}
