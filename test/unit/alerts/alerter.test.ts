/**
 * The alerter's rules (docs/architecture.md#alerts) over a real store, with the sync's reports and the clock in
 * the test's hands: newly FAILED once ever, summaries for first syncs and bursts, snoozes, pause, quiet
 * hours held and summarized, recovery notices, restarts and failed syncs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../../electron/store/database';
import { setSnooze } from '../../../electron/store/tables/snoozes';
import { ORG, alertsBench, putDataset } from '../../helpers/alerts';
import { fill, fillableDisk } from '../../helpers/fullDisk';
import { incidentOf } from '../../helpers/incidents';

const stores: Store[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function memoryStore(): Promise<Store> {
  const store = await Store.open({ dataDir: null });
  stores.push(store);
  return store;
}

const HOUR = 3_600_000;

describe('newly FAILED', () => {
  it('announces a failure once, naming the dataset and the failed stage with its shortCode and message', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    putDataset(store, 1, 'HEALTHY', 'dlv-1a');
    expect(await bench.cycle()).toEqual([]);
    putDataset(store, 1, 'FAILED', 'dlv-1b');
    const [announcement, ...rest] = await bench.cycle();
    expect(rest).toEqual([]);
    expect(announcement).toMatchObject({
      kind: 'failed',
      title: 'FAILED: Dataset 1',
      body: 'Normalize failed: E_SCHEMA_MISMATCH — The vendor file no longer matches the agreed schema',
      reason: { stage: 'normalize', shortCode: 'E_SCHEMA_MISMATCH' },
      target: { view: 'delivery', orgId: ORG, datasetId: 'ds-1', deliveryId: 'dlv-1b' },
    });
    // Re-syncs (polls and crawls alike) see the same delivery: never again.
    expect(await bench.cycle()).toEqual([]);
    expect(await bench.cycle({ kind: 'crawl' })).toEqual([]);
    expect(bench.heard).toHaveLength(1);
  });

  it('announces a FAILED dataset again when a new delivery fails, and up to three causes one by one', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    putDataset(store, 1, 'FAILED', 'dlv-1a');
    await bench.cycle();
    putDataset(store, 1, 'FAILED', 'dlv-1b', { shortCode: 'E_A' });
    putDataset(store, 2, 'FAILED', 'dlv-2a', { shortCode: 'E_B' });
    putDataset(store, 3, 'FAILED', 'dlv-3a', { shortCode: 'E_C' });
    const made = await bench.cycle();
    expect(made.map((a) => a.kind)).toEqual(['failed', 'failed', 'failed']);
    expect(made.map((a) => (a.kind === 'failed' ? a.dataset.deliveryId : ''))).toEqual([
      'dlv-1b',
      'dlv-2a',
      'dlv-3a',
    ]);
  });

  it('says when the failure reasons are not synced yet', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    putDataset(store, 4, 'FAILED', 'dlv-4a', { tasks: false });
    const [announcement] = await bench.cycle();
    expect(announcement).toMatchObject({ kind: 'failed', reason: null });
    expect(announcement!.body).toMatch(/not synced yet/);
  });

  it('makes more than three new failures of one cause one notification of that cause (grouping.test.ts)', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    for (let n = 1; n <= 5; n++) putDataset(store, n, 'FAILED', `dlv-${n}`);
    const made = await bench.cycle();
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      kind: 'cause',
      incidentId: incidentOf(store, ORG, 'normalize:E_SCHEMA_MISMATCH'),
      title: 'Normalize failed: E_SCHEMA_MISMATCH',
      target: {
        view: 'triage',
        orgId: ORG,
        incidentId: incidentOf(store, ORG, 'normalize:E_SCHEMA_MISMATCH'),
      },
    });
    expect(await bench.cycle()).toEqual([]);
  });

  it("gives a source's first sync one summary, not one notification per dataset", async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    putDataset(store, 1, 'FAILED', 'dlv-1');
    putDataset(store, 2, 'FAILED', 'dlv-2');
    putDataset(store, 3, 'HEALTHY', 'dlv-3');
    const made = await bench.cycle({ kind: 'crawl', firstSync: true });
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      kind: 'summary',
      cause: 'first-sync',
      title: '2 datasets are FAILED',
      body: `First sync of ${ORG}: Normalize failed: E_SCHEMA_MISMATCH: Dataset 1 and Dataset 2.`,
      causes: [
        {
          incidentId: incidentOf(store, ORG, 'normalize:E_SCHEMA_MISMATCH'),
          title: 'Normalize failed: E_SCHEMA_MISMATCH',
          count: 2,
        },
      ],
      target: { view: 'failed', orgId: ORG },
    });
    expect(await bench.cycle()).toEqual([]);
  });

  it('announces nothing for a failed sync, and what it missed at the next good one', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    putDataset(store, 1, 'FAILED', 'dlv-1');
    expect(await bench.cycle({ outcome: 'failed', error: 'the remote is unreachable' })).toEqual([]);
    expect((await bench.cycle()).map((a) => a.kind)).toEqual(['failed']);
  });

  it('only looks at the org whose cycle finished', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    putDataset(store, 1, 'FAILED', 'dlv-1', { orgId: 'other' });
    expect(await bench.cycle()).toEqual([]);
    expect(await bench.cycle({ orgId: 'other' })).toHaveLength(1);
  });
});

describe('the turns of an evaluation', () => {
  /** Counts the reads of the org's unannounced failures (store/tables/announcements.ts). */
  function countCandidateReads(store: Store): { reads: number } {
    const counter = { reads: 0 };
    const all = store.all.bind(store);
    store.all = (sql, params) => {
      if (sql.includes('NOT EXISTS (SELECT 1 FROM announced_deliveries')) counter.reads += 1;
      return all(sql, params);
    };
    return counter;
  }

  it('reads the candidates in a turn of their own, and decides on them when nothing was committed since', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    putDataset(store, 1, 'FAILED', 'dlv-1');
    const counter = countCandidateReads(store);
    let between = false;
    const evaluation = bench.cycle();
    // Runs once the candidates are read: before the decision only if the read had a turn of its own.
    setImmediate(() => (between = bench.heard.length === 0 && counter.reads === 1));
    expect((await evaluation).map((a) => a.title)).toEqual(['FAILED: Dataset 1']);
    expect(between).toBe(true);
    expect(counter.reads).toBe(1);
  });

  it('announces, in the same evaluation and once, a failure committed between reading the candidates and deciding', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    putDataset(store, 1, 'FAILED', 'dlv-1');
    const counter = countCandidateReads(store);
    const evaluation = bench.cycle();
    setImmediate(() => putDataset(store, 2, 'FAILED', 'dlv-2', { shortCode: 'E_OTHER' }));
    expect((await evaluation).map((a) => a.title).sort()).toEqual(['FAILED: Dataset 1', 'FAILED: Dataset 2']);
    // Read again: the commit came after the first read.
    expect(counter.reads).toBe(2);
    expect(await bench.cycle()).toEqual([]);
    expect(bench.heard).toHaveLength(2);
  });
});

describe('memory across restarts', () => {
  it('never announces a delivery again after a restart over the same data folder', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dh-alerts-'));
    dirs.push(dataDir);
    const first = await Store.open({ dataDir });
    const before = alertsBench(first);
    putDataset(first, 1, 'FAILED', 'dlv-1');
    await first.flush(); // the sync's commit is saved
    expect(await before.cycle()).toHaveLength(1);
    // The decision is on disk before it is announced: the file as a kill right now would leave it.
    const reopened = await Store.open({ dataDir });
    stores.push(reopened);
    await first.close();
    expect(await alertsBench(reopened).cycle({ kind: 'crawl' })).toEqual([]);
  });

  it('announces, after a restart, a failure committed just before a crash and never announced', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dh-alerts-'));
    dirs.push(dataDir);
    const first = await Store.open({ dataDir });
    putDataset(first, 1, 'FAILED', 'dlv-1');
    await first.close(); // the sync committed; the process died before its cycle was announced
    const reopened = await Store.open({ dataDir });
    stores.push(reopened);
    const bench = alertsBench(reopened);
    expect((await bench.cycle({ kind: 'crawl' })).map((a) => a.kind)).toEqual(['failed']);
  });
});

describe('a full disk', () => {
  it('still announces a new failure while the disk refuses writes; the decision is saved once it accepts them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dh-alerts-'));
    dirs.push(dataDir);
    const disk = fillableDisk();
    const store = await Store.open({ dataDir, openJournal: disk.openJournal });
    const bench = alertsBench(store);
    putDataset(store, 1, 'HEALTHY', 'dlv-1a');
    expect(await bench.cycle()).toEqual([]);
    await fill(disk, store);
    putDataset(store, 1, 'FAILED', 'dlv-1b');
    // Announced now: on-call hears of it while the disk is full, not never.
    expect((await bench.cycle()).map((a) => a.title)).toEqual(['FAILED: Dataset 1']);
    expect(store.persistence!.problem?.message).toMatch(/ENOSPC/);
    disk.full = false;
    await store.close();
    const reopened = await Store.open({ dataDir });
    stores.push(reopened);
    expect(await alertsBench(reopened).cycle({ kind: 'crawl' })).toEqual([]);
  });
});

describe('snoozes', () => {
  it('silences a snoozed dataset for 1 h, for good for that delivery, and announces its next failure', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    putDataset(store, 1, 'HEALTHY', 'dlv-1a');
    setSnooze(store, ORG, 'ds-1', '1h', bench.clock.now);
    putDataset(store, 1, 'FAILED', 'dlv-1b');
    expect(await bench.cycle()).toEqual([]);
    bench.clock.now = new Date(bench.clock.now.getTime() + 2 * HOUR);
    expect(await bench.cycle()).toEqual([]);
    putDataset(store, 1, 'FAILED', 'dlv-1c');
    expect((await bench.cycle()).map((a) => a.kind)).toEqual(['failed']);
  });

  it('"until next delivery" ends when a new delivery arrives; "until healthy" holds while it fails', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    putDataset(store, 1, 'FAILED', 'dlv-1a');
    putDataset(store, 2, 'FAILED', 'dlv-2a');
    setSnooze(store, ORG, 'ds-1', 'next-delivery', bench.clock.now);
    setSnooze(store, ORG, 'ds-2', 'healthy', bench.clock.now);
    expect(await bench.cycle()).toEqual([]);
    putDataset(store, 1, 'FAILED', 'dlv-1b');
    putDataset(store, 2, 'FAILED', 'dlv-2b');
    const made = await bench.cycle();
    expect(made.map((a) => (a.kind === 'failed' ? a.dataset.datasetId : a.kind))).toEqual(['ds-1']);
  });

  it('4 h snoozes count from when they were set', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    putDataset(store, 1, 'HEALTHY', 'dlv-1a');
    setSnooze(store, ORG, 'ds-1', '4h', bench.clock.now);
    bench.clock.now = new Date(bench.clock.now.getTime() + 3 * HOUR);
    putDataset(store, 1, 'FAILED', 'dlv-1b');
    expect(await bench.cycle()).toEqual([]);
    bench.clock.now = new Date(bench.clock.now.getTime() + 2 * HOUR);
    putDataset(store, 1, 'FAILED', 'dlv-1c');
    expect(await bench.cycle()).toHaveLength(1);
  });
});

describe('pause', () => {
  it('silences everything while paused (1 h, 8 h, until resumed), and failures after it are announced', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    const start = bench.clock.now.getTime();
    bench.settings.notifications.pausedUntil = new Date(start + 8 * HOUR).toISOString();
    putDataset(store, 1, 'FAILED', 'dlv-1');
    expect(await bench.cycle()).toEqual([]);
    bench.clock.now = new Date(start + 7 * HOUR);
    putDataset(store, 2, 'FAILED', 'dlv-2');
    expect(await bench.cycle()).toEqual([]);
    bench.clock.now = new Date(start + 9 * HOUR);
    // Never announced as new; once the pause is over, reminded (reminders.test.ts).
    const after = await bench.cycle();
    expect(after.map((a) => a.kind)).toEqual(['reminder']);
    expect(after[0]).toMatchObject({ datasets: [{ deliveryId: 'dlv-1' }, { deliveryId: 'dlv-2' }] });
    putDataset(store, 3, 'FAILED', 'dlv-3');
    expect((await bench.cycle()).map((a) => a.kind)).toEqual(['failed']);
    bench.settings.notifications.pausedUntil = 'forever';
    bench.clock.now = new Date(start + 1000 * HOUR);
    putDataset(store, 4, 'FAILED', 'dlv-4');
    expect(await bench.cycle()).toEqual([]);
  });
});

describe('quiet hours', () => {
  it('holds failures during quiet hours and announces one summary when they end, even after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dh-alerts-'));
    dirs.push(dataDir);
    const store = await Store.open({ dataDir });
    // 23:30 in New York: inside 22:00–07:00.
    const night = new Date('2026-11-21T04:30:00.000Z');
    const bench = alertsBench(store, { now: night, timeZone: 'America/New_York' });
    bench.settings.notifications.quietHours = { enabled: true, start: '22:00', end: '07:00' };
    putDataset(store, 1, 'FAILED', 'dlv-1');
    expect(await bench.cycle()).toEqual([]);
    bench.clock.now = new Date('2026-11-21T08:00:00.000Z'); // 03:00
    putDataset(store, 2, 'FAILED', 'dlv-2');
    expect(await bench.cycle()).toEqual([]);
    expect(await bench.alerts.tick()).toEqual([]);
    await store.close();

    const reopened = await Store.open({ dataDir });
    stores.push(reopened);
    const morning = alertsBench(reopened, {
      now: new Date('2026-11-21T12:01:00.000Z'),
      timeZone: 'America/New_York',
    });
    morning.settings.notifications.quietHours = { enabled: true, start: '22:00', end: '07:00' };
    const made = await morning.alerts.tick();
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      kind: 'summary',
      cause: 'quiet-hours',
      title: '2 datasets FAILED during quiet hours',
      target: { view: 'failed', orgId: ORG },
    });
    expect(await morning.alerts.tick()).toEqual([]);
    expect(await morning.cycle()).toEqual([]);
  });

  it('a cycle after quiet hours first releases what was held, then announces its own', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store, { now: new Date('2026-11-21T23:00:00.000Z') });
    bench.settings.notifications.quietHours = { enabled: true, start: '22:00', end: '07:00' };
    putDataset(store, 1, 'FAILED', 'dlv-1');
    await bench.cycle();
    bench.clock.now = new Date('2026-11-22T07:00:00.000Z');
    // Another cause: the summary just told of E_SCHEMA_MISMATCH (its next failure waits: coolDown.test.ts).
    putDataset(store, 2, 'FAILED', 'dlv-2', { shortCode: 'E_OTHER' });
    const made = await bench.cycle();
    expect(made.map((a) => (a.kind === 'summary' ? a.cause : a.kind))).toEqual(['quiet-hours', 'failed']);
  });

  it('held failures of a dataset snoozed meanwhile stay silent', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store, { now: new Date('2026-11-21T23:00:00.000Z') });
    bench.settings.notifications.quietHours = { enabled: true, start: '22:00', end: '07:00' };
    putDataset(store, 1, 'FAILED', 'dlv-1');
    await bench.cycle();
    setSnooze(store, ORG, 'ds-1', 'healthy', bench.clock.now);
    bench.clock.now = new Date('2026-11-22T08:00:00.000Z');
    expect(await bench.alerts.tick()).toEqual([]);
  });
});

describe('recovery notices', () => {
  it('are off by default, and when on say which datasets delivered again', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    putDataset(store, 1, 'HEALTHY', 'dlv-1b');
    const transitions = [{ datasetId: 'ds-1', from: 'FAILED', to: 'HEALTHY', deliveryId: 'dlv-1b' }];
    expect(await bench.cycle({ transitions })).toEqual([]);
    bench.settings.notifications.recoveryNotices = true;
    const [notice] = await bench.cycle({ transitions });
    expect(notice).toMatchObject({
      kind: 'recovered',
      title: 'Recovered: Dataset 1',
      body: 'Now HEALTHY (was FAILED).',
      target: { view: 'dataset', orgId: ORG, datasetId: 'ds-1' },
    });
    // Not for a first sync (nothing recovered: the mirror is new), nor a change to MISSING.
    expect(await bench.cycle({ transitions, firstSync: true })).toEqual([]);
    expect(
      await bench.cycle({
        transitions: [{ datasetId: 'ds-1', from: 'HEALTHY', to: 'MISSING', deliveryId: null }],
      }),
    ).toEqual([]);
  });
});

describe('running', () => {
  it('hears cycles from the sync once started and ticks on its own timer', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store);
    bench.alerts.start();
    putDataset(store, 1, 'FAILED', 'dlv-1');
    bench.alerts.start(); // twice is once
    const ticks = [...bench.timers.pending.values()].filter((timer) => timer.ms === 30_000);
    expect(ticks).toHaveLength(1);
    ticks[0]!.fn();
    await bench.alerts.stop();
    // A tick releases held failures only; the cycle itself announces.
    expect(bench.heard).toEqual([]);
    expect(bench.timers.pending.size).toBe(0);
  });
});
