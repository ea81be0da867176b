/**
 * The alerts end to end (docs/architecture.md#alerts): the real engine (sync loop, store on disk, alerts) mirroring the
 * remote simulator on loopback. The simulator's clock is moved to the minute a dataset fails: the
 * announcement comes with the next fast poll, exactly once, and never again after a restart.
 */
import { afterEach, expect, it } from 'vitest';
import { createManualClock } from '../../electron/demo/remote/clock';
import { type RemoteSimulator, startRemoteSimulator } from '../../electron/demo/remote/server';
import type { SimulatedOrg } from '../../electron/demo/remote/org';
import type { Announcement } from '../../electron/alerts/types';
import { Store } from '../../electron/store/database';
import { openHeadlessSettings } from '../../electron/store/tables/settings';
import { saveSource } from '../../electron/store/tables/sources';
import { type RunningEngine, runEngine } from '../../electron/engine/runEngine';
import type { CycleEvent } from '../../shared/sync';
import { removeTempDirs, tempDir } from '../helpers/cli';

const KEY = 'sim-alerts-key';
const START = Date.UTC(2026, 10, 21, 4, 41);
const POLL_MS = 150;
/** Generous: a loaded CI machine is slow, and nothing here is timed. */
const WAIT = { timeout: 20_000 };

let simulator: RemoteSimulator | undefined;
const running: { engine: RunningEngine; store: Store }[] = [];
afterEach(async () => {
  for (const { engine, store } of running.splice(0)) {
    await engine.stop();
    await store.close();
  }
  await simulator?.close();
  removeTempDirs();
});

/** Newest FAILED delivery of each FAILED dataset at `ms`, by dataset id. */
function failedAt(org: SimulatedOrg, ms: number): Map<string, string> {
  const failed = new Map<string, string>();
  for (let index = 0; index < org.size; index++) {
    if (org.latest(index, ms).status !== 'FAILED') continue;
    const record = org.record(index, ms, 10);
    const event = record.deliveryEventList.find((e) => e.status === 'FAILED');
    failed.set(record.datasetId, event?.deliveryId ?? record.deliveryId!);
  }
  return failed;
}

/** The first minute after `from` at which some dataset fails with a delivery not failed before. */
function nextFailure(org: SimulatedOrg, from: number): { at: number; deliveries: string[] } {
  const before = new Set(failedAt(org, from).values());
  for (let at = from + 60_000; at < from + 48 * 3_600_000; at += 60_000) {
    const deliveries = [...failedAt(org, at).values()].filter((id) => !before.has(id));
    if (deliveries.length > 0) return { at, deliveries: deliveries.sort() };
  }
  throw new Error('no dataset fails within two days');
}

async function start(dataDir: string, clock: { now(): number }) {
  const store = await Store.open({ dataDir });
  const cycles: CycleEvent[] = [];
  const heard: { announcement: Announcement; afterCycles: number }[] = [];
  const engine = await runEngine({
    purpose: 'serve',
    store,
    dataDir,
    port: 0,
    settings: openHeadlessSettings(dataDir, store, () => new Date(clock.now())),
    now: () => new Date(clock.now()),
    secrets: { apiKeyFor: () => KEY, hint: '' },
    logger: false,
    intervals: { pollMs: POLL_MS, crawlMs: 7 * 24 * 3_600_000 },
    demoWhenNoSources: false,
    timeZone: 'UTC',
    // Failures only: the simulator's clock jumps hours ahead, so reminders of the first sync's failures
    // (test/unit/alerts/reminders.test.ts) come with the jump.
    announce: (announcement) => {
      if (FAILURE_KINDS.has(announcement.kind)) heard.push({ announcement, afterCycles: cycles.length });
    },
  });
  engine.sync.onCycle((cycle) => cycles.push(cycle));
  running.push({ engine, store });
  return { engine, store, cycles, heard };
}

/** Announcements of failed deliveries (one, a cause, a summary). */
const FAILURE_KINDS = new Set<Announcement['kind']>(['failed', 'cause', 'summary']);

const deliveriesOf = (announcements: Announcement[]): string[] =>
  announcements
    .flatMap((a) =>
      a.kind === 'failed' ? [a.dataset] : a.kind === 'summary' || a.kind === 'cause' ? a.datasets : [],
    )
    .map((d) => d.deliveryId)
    .sort();

it('announces a forced failure at the next fast poll, exactly once, and never again after a restart', async () => {
  const clock = createManualClock(START);
  simulator = await startRemoteSimulator({ port: 0, apiKey: KEY, datasets: 200, seed: 5, clock });
  const dataDir = tempDir('dh-alerts-e2e-');
  const setup = await Store.open({ dataDir });
  saveSource(setup, { id: 'acme-remote', orgId: 'acme', baseUrl: simulator.url }, new Date(START));
  await setup.close();

  const first = await start(dataDir, clock);
  // The first crawl: whatever is FAILED already is one summary.
  await expect
    .poll(() => first.cycles.some((c) => c.kind === 'crawl' && c.outcome === 'ok'), WAIT)
    .toBe(true);
  await expect.poll(() => first.cycles.filter((c) => c.kind === 'poll').length, WAIT).toBeGreaterThan(1);
  const initial = first.heard.map((h) => h.announcement);
  expect(initial).toHaveLength(1);
  expect(initial[0]).toMatchObject({ kind: 'summary', cause: 'first-sync' });
  expect(deliveriesOf(initial)).toEqual([...failedAt(simulator.org, START).values()].sort());

  // Time moves to the minute a dataset fails.
  const failure = nextFailure(simulator.org, START);
  const cyclesBefore = first.cycles.length;
  clock.set(failure.at);
  await expect.poll(() => first.heard.length, WAIT).toBe(2);
  const { announcement, afterCycles } = first.heard[1]!;
  // Within one fast-poll cycle: the poll in flight when the clock moved, or the next one.
  expect(afterCycles - cyclesBefore).toBeLessThanOrEqual(2);
  expect(first.cycles[afterCycles - 1]!.kind).toBe('poll');
  expect(deliveriesOf([announcement])).toEqual(failure.deliveries);
  if (announcement.kind === 'failed')
    expect(announcement.reason).toMatchObject({ stage: expect.any(String), shortCode: expect.any(String) });

  // More polls and a crawl see the same failure: nothing more.
  const seen = first.cycles.length;
  await expect.poll(() => first.cycles.length, WAIT).toBeGreaterThan(seen + 5);
  await first.engine.sync.syncNow();
  expect(first.heard).toHaveLength(2);
  await first.engine.stop();
  await first.store.close();
  running.length = 0;

  // A restart over the same data folder: crawl and polls, and still nothing.
  const second = await start(dataDir, clock);
  await expect
    .poll(() => second.cycles.some((c) => c.kind === 'crawl' && c.outcome === 'ok'), WAIT)
    .toBe(true);
  expect(second.cycles.find((c) => c.kind === 'crawl')!.firstSync).toBe(false);
  await expect.poll(() => second.cycles.filter((c) => c.kind === 'poll').length, WAIT).toBeGreaterThan(3);
  expect(second.heard).toEqual([]);
});
