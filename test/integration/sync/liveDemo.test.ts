/**
 * The built-in demo (docs/architecture.md#demo-data): with no source configured, a new user sees a sync and a dataset
 * newly FAILED within the first two minutes. Real time is injected, so two minutes pass at once.
 */
import { afterEach, expect, it } from 'vitest';
import { type BuiltInDemo, DEMO_INTERVALS, startBuiltInDemo } from '../../../electron/demo/remote/builtIn';
import { Store } from '../../../electron/store/database';
import { SourcesSync } from '../../../electron/sync/sourcesSync';
import type { CycleEvent } from '../../../shared/sync';

let demo: BuiltInDemo | undefined;
let store: Store | undefined;
afterEach(async () => {
  await demo?.close();
  await store?.close();
});

it('shows a sync, then datasets newly FAILED, within two minutes', async () => {
  let now = Date.UTC(2026, 10, 21, 4, 41);
  const clock = () => new Date(now);
  demo = await startBuiltInDemo({ now: clock });
  store = await Store.open({ dataDir: null });
  const sourcesSync = new SourcesSync({
    store,
    secrets: { apiKeyFor: () => null, hint: '' },
    now: clock,
    timers: { setTimeout: () => 0, clearTimeout: () => {} },
    builtIn: [{ source: demo.source, apiKey: demo.apiKey, intervals: DEMO_INTERVALS }],
  });
  const cycles: CycleEvent[] = [];
  sourcesSync.onCycle((event) => cycles.push(event));
  sourcesSync.start();
  const runner = sourcesSync.runner('demo')!;
  await runner.runCycle('crawl');
  expect(cycles[0]).toMatchObject({ kind: 'crawl', outcome: 'ok', firstSync: true, orgId: 'live-demo' });
  expect(cycles[0]!.counts.received).toBe(500);
  // The app polls every 10 s: twelve polls are the first two minutes.
  for (let poll = 0; poll < 12; poll++) {
    now += DEMO_INTERVALS.pollMs;
    await runner.runCycle('poll');
  }
  const newlyFailed = cycles
    .slice(1)
    .flatMap((cycle) => cycle.transitions)
    .filter((t) => t.to === 'FAILED' && t.from !== null);
  expect(newlyFailed.length).toBeGreaterThan(0);
  expect(cycles.every((cycle) => cycle.outcome === 'ok')).toBe(true);
  await sourcesSync.stop();
});
