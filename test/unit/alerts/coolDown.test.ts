/**
 * A cause's cool-down (alerts/coolDown.ts) over a real store, with the sync's reports and the clock in
 * the test's hands: an outage failing one dataset a poll notifies once, then once per cool-down with
 * "N more"; other causes are not delayed; pause, quiet hours and snoozes apply at release; batched
 * failures survive a restart and are released once; reminders count them only once released.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COOL_DOWN_MS } from '../../../electron/alerts/coolDown';
import { TICK_MS } from '../../../electron/alerts/alerter';
import type { Announcement } from '../../../electron/alerts/types';
import { acknowledgeCause, acknowledgeDataset } from '../../../electron/knowledge/acknowledge';
import { Store } from '../../../electron/store/database';
import { setSnooze } from '../../../electron/store/tables/snoozes';
import { ORG, alertsBench, putDataset, sourceState, type AlertsBench } from '../../helpers/alerts';
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

const MINUTE = 60_000;
const T0 = new Date('2026-11-21T12:00:00.000Z');
const BLUEFIN = { id: 'sup-bluefin', name: 'Bluefin Exchange Feeds' };
const AUTH = 'normalize:E_AUTH_FAILED';

/** Dataset `n` fails with E_AUTH_FAILED from Bluefin (or `shortCode`), delivery `dlv-<n>` (or `deliveryId`). */
function fail(store: Store, n: number, shortCode = 'E_AUTH_FAILED', deliveryId = `dlv-${n}`): void {
  putDataset(store, n, 'FAILED', deliveryId, { shortCode, supplier: BLUEFIN });
}

/** The clock at `minutes` after T0. */
function at(bench: AlertsBench, minutes: number): void {
  bench.clock.now = new Date(T0.getTime() + minutes * MINUTE);
}

/** Deliveries an announcement tells of. */
function deliveries(announcement: Announcement): string[] {
  if (announcement.kind === 'failed') return [announcement.dataset.deliveryId];
  if (announcement.kind === 'cause' || announcement.kind === 'summary')
    return announcement.datasets.map((dataset) => dataset.deliveryId);
  return [];
}

/**
 * A cause in its cool-down: dataset 1 failed and was notified at T0; datasets 2 and 3 failed a minute
 * later and wait (batched). The clock stands at T0 + 1 min.
 */
async function coolingCause(): Promise<{ store: Store; bench: AlertsBench }> {
  const store = await memoryStore();
  const bench = alertsBench(store, { now: T0 });
  fail(store, 1);
  await bench.cycle();
  at(bench, 1);
  fail(store, 2);
  fail(store, 3);
  await bench.cycle();
  return { store, bench };
}

const outcomeOf = (store: Store, deliveryId: string): unknown =>
  store.value('SELECT outcome FROM announced_deliveries WHERE org_id = ? AND delivery_id = ?', [
    ORG,
    deliveryId,
  ]);

describe('a cause that keeps failing', () => {
  it('notifies once at once, then at most once per cool-down with what failed meanwhile: none twice, none lost', async () => {
    expect(COOL_DOWN_MS).toBe(10 * MINUTE);
    const store = await memoryStore();
    const bench = alertsBench(store, { now: T0 });
    bench.settings.triage.reminderMinutes = 0; // reminders apart (below)
    // 30 minutes of an outage: one more dataset fails each poll (60 s), the engine ticks every 30 s.
    for (let ms = 0; ms <= 30 * MINUTE; ms += TICK_MS) {
      bench.clock.now = new Date(T0.getTime() + ms);
      if (ms % MINUTE === 0) {
        fail(store, ms / MINUTE + 1);
        await bench.cycle();
      } else await bench.alerts.tick();
    }
    const times = bench.heard.map((a) => (Date.parse(a.at) - T0.getTime()) / MINUTE);
    // The first at once; then one a cool-down: at 10, 20 and 30 minutes.
    expect(times).toEqual([0, 10, 20, 30]);
    const [first, second, third] = bench.heard;
    expect(first).toMatchObject({
      kind: 'failed',
      title: 'FAILED: Dataset 1',
      incidentId: incidentOf(store, ORG, AUTH),
    });
    expect(second).toMatchObject({
      kind: 'cause',
      incidentId: incidentOf(store, ORG, AUTH),
      more: true,
      // ds-11 failed at 10:00 too, unannounced yet: 11 failing now.
      failingNow: 11,
      title: 'Normalize failed: E_AUTH_FAILED',
      body: '9 more datasets from Bluefin Exchange Feeds (11 failing now)',
      target: { view: 'triage', orgId: ORG, incidentId: incidentOf(store, ORG, AUTH) },
    });
    expect(deliveries(second!)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => `dlv-${n}`));
    expect(third).toMatchObject({ body: '10 more datasets from Bluefin Exchange Feeds (21 failing now)' });
    expect(bench.heard[3]).toMatchObject({
      body: '10 more datasets from Bluefin Exchange Feeds (31 failing now)',
    });
    // The outage stops; ds-31 (failed at 30:00, after that release) a cool-down after the last notification.
    at(bench, 39);
    expect(await bench.alerts.tick()).toEqual([]);
    at(bench, 40);
    expect((await bench.alerts.tick()).map((a) => a.title)).toEqual(['FAILED: Dataset 31']);
    expect(await bench.alerts.tick()).toEqual([]);
    at(bench, 60);
    expect(await bench.cycle()).toEqual([]);
    const told = bench.heard.flatMap(deliveries);
    expect(told).toHaveLength(31);
    expect(new Set(told).size).toBe(31);
  });

  it('releases a single batched failure as its own notification', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store, { now: T0 });
    fail(store, 1);
    await bench.cycle();
    at(bench, 3);
    fail(store, 2);
    expect(await bench.cycle()).toEqual([]);
    expect(outcomeOf(store, 'dlv-2')).toBe('batched');
    at(bench, 9.5);
    expect(await bench.alerts.tick()).toEqual([]);
    at(bench, 10);
    const [released, ...rest] = await bench.alerts.tick();
    expect(rest).toEqual([]);
    expect(released).toMatchObject({
      kind: 'failed',
      title: 'FAILED: Dataset 2',
      incidentId: incidentOf(store, ORG, AUTH),
      target: { view: 'delivery', datasetId: 'ds-2', deliveryId: 'dlv-2' },
    });
    expect(outcomeOf(store, 'dlv-2')).toBe('notified');
  });

  it("counts a burst's summary that covered the cause as its last notification", async () => {
    const store = await memoryStore();
    const bench = alertsBench(store, { now: T0 });
    for (const [n, code] of ['E_AUTH_FAILED', 'E_A', 'E_B', 'E_C'].entries()) fail(store, n + 1, code);
    expect((await bench.cycle()).map((a) => (a.kind === 'summary' ? a.cause : a.kind))).toEqual(['many']);
    at(bench, 5);
    fail(store, 5);
    expect(await bench.cycle()).toEqual([]);
    at(bench, 10);
    expect((await bench.alerts.tick()).map((a) => a.title)).toEqual(['FAILED: Dataset 5']);
  });

  it("starts no cool-down with a first sync's summary: it told what was failing already", async () => {
    const store = await memoryStore();
    const bench = alertsBench(store, { now: T0 });
    for (let n = 1; n <= 3; n++) fail(store, n);
    await bench.cycle({ kind: 'crawl', firstSync: true });
    expect(bench.heard.map((a) => a.kind)).toEqual(['summary']);
    at(bench, 1);
    fail(store, 4);
    expect((await bench.cycle()).map((a) => a.title)).toEqual(['FAILED: Dataset 4']);
    // That one starts it.
    at(bench, 2);
    fail(store, 5);
    expect(await bench.cycle()).toEqual([]);
    expect(outcomeOf(store, 'dlv-5')).toBe('batched');
  });

  it('does not delay another cause, nor a cause failing again after it recovered and a cool-down passed', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store, { now: T0 });
    fail(store, 1);
    await bench.cycle();
    at(bench, 2);
    fail(store, 2);
    fail(store, 3, 'E_SCHEMA_MISMATCH');
    // E_AUTH_FAILED waits; E_SCHEMA_MISMATCH was never notified: at once.
    expect((await bench.cycle()).map((a) => a.title)).toEqual(['FAILED: Dataset 3']);
    at(bench, 3);
    fail(store, 4, 'E_SCHEMA_MISMATCH');
    expect(await bench.cycle()).toEqual([]);
    at(bench, 10);
    expect((await bench.alerts.tick()).map((a) => a.title)).toEqual(['FAILED: Dataset 2']);
    at(bench, 12);
    expect((await bench.alerts.tick()).map((a) => a.title)).toEqual(['FAILED: Dataset 4']);
    // Both causes recover; E_AUTH_FAILED comes back long after its cool-down: told at once.
    for (let n = 1; n <= 4; n++) putDataset(store, n, 'HEALTHY', `dlv-${n}-ok`);
    at(bench, 13);
    await bench.cycle();
    at(bench, 45);
    fail(store, 1, 'E_AUTH_FAILED', 'dlv-1-again');
    fail(store, 2, 'E_AUTH_FAILED', 'dlv-2-again');
    expect((await bench.cycle()).map((a) => [a.kind, a.body])).toEqual([
      ['cause', '2 datasets from Bluefin Exchange Feeds'],
    ]);
  });

  it('still tells a batched failure that recovered while it waited, with its supplier', async () => {
    const { store, bench } = await coolingCause();
    at(bench, 5);
    putDataset(store, 2, 'HEALTHY', 'dlv-2-ok', { supplier: BLUEFIN });
    await bench.cycle();
    at(bench, 10);
    const [released, ...rest] = await bench.alerts.tick();
    expect(rest).toEqual([]);
    expect(released).toMatchObject({
      kind: 'cause',
      body: '2 more datasets from Bluefin Exchange Feeds (2 failing now)',
      suppliers: [{ id: BLUEFIN.id, name: BLUEFIN.name, count: 2 }],
    });
    expect(deliveries(released!)).toEqual(['dlv-2', 'dlv-3']);
  });

  it('releases more than three causes at once as one summary, and several orgs apart', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store, { now: T0 });
    const codes = ['E_A', 'E_B', 'E_C', 'E_D'];
    for (const [i, code] of codes.entries()) fail(store, i + 1, code);
    putDataset(store, 9, 'FAILED', 'dlv-9', { orgId: 'other', shortCode: 'E_A' });
    await bench.cycle();
    await bench.cycle({ orgId: 'other', sourceId: 'other-remote' });
    expect(bench.heard.map((a) => a.kind)).toEqual(['summary', 'failed']);
    at(bench, 5);
    for (const [i, code] of codes.entries()) fail(store, i + 11, code);
    putDataset(store, 19, 'FAILED', 'dlv-19', { orgId: 'other', shortCode: 'E_A' });
    expect(await bench.cycle()).toEqual([]);
    expect(await bench.cycle({ orgId: 'other', sourceId: 'other-remote' })).toEqual([]);
    at(bench, 9.5);
    expect(await bench.alerts.tick()).toEqual([]);
    at(bench, 10);
    const released = await bench.alerts.tick();
    expect(released.map((a) => [a.kind === 'summary' ? a.cause : a.kind, ...deliveries(a)])).toEqual([
      ['many', 'dlv-11', 'dlv-12', 'dlv-13', 'dlv-14'],
      ['failed', 'dlv-19'],
    ]);
  });

  it('batches and releases new failures of an acknowledged cause the same way', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store, { now: T0 });
    fail(store, 1);
    fail(store, 2);
    await bench.cycle();
    acknowledgeCause(store, ORG, AUTH, 'Bluefin rotating keys', { by: 'sam', now: bench.clock.now });
    at(bench, 1);
    fail(store, 3);
    fail(store, 4);
    expect(await bench.cycle()).toEqual([]);
    at(bench, 10);
    expect((await bench.alerts.tick()).map((a) => a.body)).toEqual([
      '2 more datasets from Bluefin Exchange Feeds (4 failing now)',
    ]);
  });
});

describe('at release', () => {
  it('failures acknowledged while they waited are not notified, then or ever; the rest are counted alone', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store, { now: T0 });
    bench.settings.triage.reminderMinutes = 0;
    fail(store, 1);
    await bench.cycle();
    at(bench, 1);
    fail(store, 2);
    fail(store, 3);
    expect(await bench.cycle()).toEqual([]);
    acknowledgeCause(store, ORG, AUTH, 'Bluefin rotating keys', { by: 'sam', now: bench.clock.now });
    at(bench, 10);
    expect(await bench.alerts.tick()).toEqual([]);
    expect(outcomeOf(store, 'dlv-2')).toBe('acknowledged');
    expect(outcomeOf(store, 'dlv-3')).toBe('acknowledged');
    at(bench, 30);
    expect(await bench.cycle()).toEqual([]);
    expect(bench.heard.flatMap(deliveries)).toEqual(['dlv-1']);

    // One of two acknowledged: the release tells of the other alone.
    at(bench, 31);
    fail(store, 4, 'E_OTHER');
    await bench.cycle();
    at(bench, 32);
    fail(store, 5, 'E_OTHER');
    fail(store, 6, 'E_OTHER');
    expect(await bench.cycle()).toEqual([]);
    acknowledgeDataset(store, ORG, 'ds-5', null, { by: 'sam', now: bench.clock.now });
    at(bench, 41);
    const [released, ...rest] = await bench.alerts.tick();
    expect(rest).toEqual([]);
    expect(released).toMatchObject({ kind: 'failed', title: 'FAILED: Dataset 6' });
    expect(outcomeOf(store, 'dlv-5')).toBe('acknowledged');
  });

  it('failures held in quiet hours and acknowledged meanwhile are left out of their summary', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store, { now: T0 });
    bench.settings.notifications.quietHours = { enabled: true, start: '12:00', end: '13:00' };
    fail(store, 1);
    fail(store, 2);
    await bench.cycle();
    acknowledgeDataset(store, ORG, 'ds-1', null, { by: 'sam', now: bench.clock.now });
    at(bench, 60);
    const [summary, ...rest] = await bench.alerts.tick();
    expect(rest).toEqual([]);
    expect(summary).toMatchObject({ kind: 'summary', cause: 'quiet-hours' });
    expect(deliveries(summary!)).toEqual(['dlv-2']);
    expect(outcomeOf(store, 'dlv-1')).toBe('acknowledged');
    // All acknowledged: no summary at all.
    bench.settings.notifications.quietHours = { enabled: true, start: '13:00', end: '14:00' };
    fail(store, 3);
    await bench.cycle();
    acknowledgeDataset(store, ORG, 'ds-3', null, { by: 'sam', now: bench.clock.now });
    at(bench, 120);
    expect(await bench.alerts.tick()).toEqual([]);
    expect(outcomeOf(store, 'dlv-3')).toBe('acknowledged');
  });

  it('releases and new failures of one evaluation count together: more than three make one summary', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store, { now: T0 });
    for (const [i, code] of ['E_A', 'E_B', 'E_C'].entries()) fail(store, i + 1, code);
    expect((await bench.cycle()).map((a) => a.kind)).toEqual(['failed', 'failed', 'failed']);
    at(bench, 5);
    for (const [i, code] of ['E_A', 'E_B', 'E_C'].entries()) fail(store, i + 11, code);
    expect(await bench.cycle()).toEqual([]);
    at(bench, 10);
    for (const [i, code] of ['E_D', 'E_E', 'E_F'].entries()) fail(store, i + 21, code);
    const made = await bench.cycle();
    expect(made.map((a) => (a.kind === 'summary' ? a.cause : a.kind))).toEqual(['many']);
    expect(deliveries(made[0]!).sort()).toEqual(
      ['dlv-11', 'dlv-12', 'dlv-13', 'dlv-21', 'dlv-22', 'dlv-23'].sort(),
    );
    for (const id of ['dlv-11', 'dlv-21']) expect(outcomeOf(store, id)).toBe('summarized');
  });

  it('a pause silences what waits (and what fails meanwhile); failures after it are told', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store, { now: T0 });
    fail(store, 1);
    await bench.cycle();
    at(bench, 1);
    fail(store, 2);
    await bench.cycle();
    at(bench, 5);
    bench.settings.notifications.pausedUntil = 'forever';
    fail(store, 3);
    expect(await bench.cycle()).toEqual([]);
    at(bench, 10);
    expect(await bench.alerts.tick()).toEqual([]);
    expect([outcomeOf(store, 'dlv-2'), outcomeOf(store, 'dlv-3')]).toEqual(['paused', 'paused']);
    at(bench, 12);
    bench.settings.notifications.pausedUntil = null;
    expect(await bench.alerts.tick()).toEqual([]);
    fail(store, 4);
    // Its last notification was 12 minutes ago: at once.
    expect((await bench.cycle()).map((a) => a.title)).toEqual(['FAILED: Dataset 4']);
  });

  it('in quiet hours they are held and join the summary when the hours end', async () => {
    const { store, bench } = await coolingCause();
    bench.settings.notifications.quietHours = { enabled: true, start: '12:05', end: '13:00' };
    at(bench, 10);
    expect(await bench.alerts.tick()).toEqual([]);
    expect(outcomeOf(store, 'dlv-2')).toBe('held');
    at(bench, 20);
    fail(store, 4);
    expect(await bench.cycle()).toEqual([]);
    at(bench, 60);
    const [summary, ...rest] = await bench.alerts.tick();
    expect(rest).toEqual([]);
    expect(summary).toMatchObject({
      kind: 'summary',
      cause: 'quiet-hours',
      title: '3 datasets FAILED during quiet hours',
    });
    expect(deliveries(summary!)).toEqual(['dlv-2', 'dlv-3', 'dlv-4']);
  });

  it('a dataset snoozed meanwhile stays silent; the rest of its cause is told', async () => {
    const { store, bench } = await coolingCause();
    setSnooze(store, ORG, 'ds-2', '1h', bench.clock.now);
    at(bench, 10);
    expect((await bench.alerts.tick()).map((a) => a.title)).toEqual(['FAILED: Dataset 3']);
    expect(outcomeOf(store, 'dlv-2')).toBe('snoozed');
  });

  it('reminders count a batched failure only once it is released, from its release', async () => {
    const store = await memoryStore();
    const bench = alertsBench(store, { now: T0 });
    bench.settings.triage.reminderMinutes = 30;
    bench.sync.setState(sourceState()); // ticks remind the orgs of the sources
    fail(store, 1);
    await bench.cycle();
    at(bench, 1);
    fail(store, 2);
    await bench.cycle();
    at(bench, 10);
    await bench.alerts.tick();
    at(bench, 30);
    const [reminder] = await bench.alerts.tick();
    expect(reminder).toMatchObject({ kind: 'reminder', body: 'Dataset 1 · reminder 1 of 3' });
    at(bench, 39.5);
    expect(await bench.alerts.tick()).toEqual([]);
    at(bench, 40);
    expect((await bench.alerts.tick()).map((a) => a.body)).toEqual(['Dataset 2 · reminder 1 of 3']);
  });
});

describe('across a restart', () => {
  it('keeps batched failures and releases them once when the cool-down has passed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dh-cooldown-'));
    dirs.push(dataDir);
    const first = await Store.open({ dataDir });
    const before = alertsBench(first, { now: T0 });
    fail(first, 1);
    await before.cycle();
    at(before, 1);
    fail(first, 2);
    await before.cycle();
    at(before, 2);
    fail(first, 3);
    await before.cycle();
    expect(before.heard).toHaveLength(1);
    await before.alerts.stop();
    await first.close();

    const store = await Store.open({ dataDir });
    stores.push(store);
    const after = alertsBench(store, { now: new Date(T0.getTime() + 5 * MINUTE) });
    // Still cooling down after the restart: the clock is the memory's.
    expect(await after.alerts.tick()).toEqual([]);
    at(after, 11);
    expect((await after.alerts.tick()).map((a) => [a.kind, ...deliveries(a)])).toEqual([
      ['cause', 'dlv-2', 'dlv-3'],
    ]);
    expect(await after.alerts.tick()).toEqual([]);
    await after.alerts.stop();
    await store.flush();

    const again = alertsBench(store, { now: new Date(T0.getTime() + 30 * MINUTE) });
    again.settings.triage.reminderMinutes = 0;
    expect(await again.alerts.tick()).toEqual([]);
    expect(await again.cycle()).toEqual([]);
  });
});
