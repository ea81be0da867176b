/**
 * Reminders (docs/architecture.md#reminders) on the injected clock, over a real store: a failure someone was told of and
 * nobody acknowledged is reminded every `reminderMinutes`, grouped by cause, at most three times; an
 * acknowledgement or a snooze stops them; none while paused or in quiet hours, and the count goes on
 * after; 0 turns them off.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Announcement } from '../../../electron/alerts/types';
import { acknowledge } from '../../../electron/store/tables/acknowledgements';
import { Store } from '../../../electron/store/database';
import { setSnooze } from '../../../electron/store/tables/snoozes';
import { datasetTimeline } from '../../../electron/store/tables/timeline';
import { ORG, alertsBench, putDataset, sourceState, type AlertsBench } from '../../helpers/alerts';
import { incidentOf } from '../../helpers/incidents';

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

const MINUTE = 60_000;
const T0 = new Date('2026-11-21T12:00:00.000Z');
const BLUEFIN = { id: 'sup-bluefin', name: 'Bluefin Exchange Feeds' };
const AUTH = 'normalize:E_AUTH_FAILED';

async function bench(): Promise<{
  store: Store;
  bench: AlertsBench;
  at(minutes: number): Promise<Announcement[]>;
}> {
  const store = await Store.open({ dataDir: null });
  stores.push(store);
  const made = alertsBench(store, { now: T0 });
  const at = (minutes: number) => {
    made.clock.now = new Date(T0.getTime() + minutes * MINUTE);
    // The source keeps syncing: only reminders speak.
    made.sync.setState(sourceState({ lastSuccessAt: made.clock.now.toISOString() }));
    return made.alerts.tick();
  };
  made.sync.setState(sourceState({ lastSuccessAt: T0.toISOString() }));
  return { store, bench: made, at };
}

/** Two failures of one cause (E_AUTH_FAILED at Bluefin), announced at T0 as one notification. */
async function twoAuthFailures(store: Store, made: AlertsBench): Promise<void> {
  putDataset(store, 1, 'FAILED', 'dlv-1', { shortCode: 'E_AUTH_FAILED', supplier: BLUEFIN });
  putDataset(store, 2, 'FAILED', 'dlv-2', { shortCode: 'E_AUTH_FAILED', supplier: BLUEFIN });
  expect((await made.cycle()).map((a) => a.kind)).toEqual(['cause']);
}

const ack = (store: Store, datasetId: string, deliveryId: string) =>
  store.transaction(() =>
    acknowledge(store, {
      orgId: ORG,
      datasetId,
      deliveryId,
      status: 'FAILED',
      causeId: null,
      note: null,
      by: 'sam',
      at: T0.toISOString(),
    }),
  );

const bodies = (made: Announcement[]) => made.map((a) => `${a.kind}: ${a.title} | ${a.body}`);

describe('reminders', () => {
  it('remind a cause every N minutes after it was announced, at most three times, with a timeline entry each', async () => {
    const { store, bench: made, at } = await bench();
    await twoAuthFailures(store, made);
    expect(await at(29)).toEqual([]);
    const [first, ...rest] = await at(30);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({
      kind: 'reminder',
      orgId: ORG,
      title: 'Still failing, nobody on it — Normalize failed: E_AUTH_FAILED',
      body: '2 datasets from Bluefin Exchange Feeds · reminder 1 of 3',
      causes: [{ incidentId: incidentOf(store, ORG, AUTH), count: 2 }],
      target: { view: 'triage', orgId: ORG, incidentId: incidentOf(store, ORG, AUTH) },
    });
    expect(await at(31)).toEqual([]);
    expect(await at(59)).toEqual([]);
    expect(bodies(await at(60))).toEqual([
      'reminder: Still failing, nobody on it — Normalize failed: E_AUTH_FAILED | 2 datasets from Bluefin Exchange Feeds · reminder 2 of 3',
    ]);
    expect((await at(90)).map((a) => a.body)).toEqual([
      '2 datasets from Bluefin Exchange Feeds · reminder 3 of 3',
    ]);
    expect(await at(120)).toEqual([]);
    expect(await at(600)).toEqual([]);
    const entries = datasetTimeline(store, ORG, 'ds-1', 50);
    expect(entries.filter((e) => e.kind === 'reminded').map((e) => e.at)).toEqual([
      new Date(T0.getTime() + 90 * MINUTE).toISOString(),
      new Date(T0.getTime() + 60 * MINUTE).toISOString(),
      new Date(T0.getTime() + 30 * MINUTE).toISOString(),
    ]);
    expect(entries.find((e) => e.kind === 'reminded')?.text).toBe(
      'Still failing, nobody on it — Normalize failed: E_AUTH_FAILED',
    );
  });

  it('stop for an acknowledged failure; the rest of its cause is still reminded', async () => {
    const { store, bench: made, at } = await bench();
    await twoAuthFailures(store, made);
    ack(store, 'ds-1', 'dlv-1');
    expect(bodies(await at(30))).toEqual([
      'reminder: Still failing, nobody on it — Normalize failed: E_AUTH_FAILED | Dataset 2 · reminder 1 of 3',
    ]);
    ack(store, 'ds-2', 'dlv-2');
    expect(await at(60)).toEqual([]);
    expect(await at(90)).toEqual([]);
  });

  it('stop while the dataset is snoozed', async () => {
    const { store, bench: made, at } = await bench();
    await twoAuthFailures(store, made);
    setSnooze(store, ORG, 'ds-1', 'healthy', made.clock.now);
    setSnooze(store, ORG, 'ds-2', '1h', made.clock.now);
    expect(await at(30)).toEqual([]);
    // The 1 h snooze ends: what fell due is reminded.
    expect((await at(61)).map((a) => a.body)).toEqual(['Dataset 2 · reminder 1 of 3']);
  });

  it('wait while paused and resume after it, the count going on', async () => {
    const { store, bench: made, at } = await bench();
    await twoAuthFailures(store, made);
    expect(await at(30)).toHaveLength(1);
    made.settings.notifications.pausedUntil = new Date(T0.getTime() + 100 * MINUTE).toISOString();
    expect(await at(60)).toEqual([]);
    expect(await at(99)).toEqual([]);
    expect((await at(100)).map((a) => a.body)).toEqual([
      '2 datasets from Bluefin Exchange Feeds · reminder 2 of 3',
    ]);
    made.settings.notifications.pausedUntil = 'forever';
    expect(await at(500)).toEqual([]);
    made.settings.notifications.pausedUntil = null;
    expect((await at(501)).map((a) => a.body)).toEqual([
      '2 datasets from Bluefin Exchange Feeds · reminder 3 of 3',
    ]);
    expect(await at(600)).toEqual([]);
  });

  it('wait through quiet hours; failures held in them count from their release', async () => {
    const { store, bench: made, at } = await bench();
    // Quiet 12:40–14:00 UTC.
    made.settings.notifications.quietHours = { enabled: true, start: '12:40', end: '14:00' };
    await twoAuthFailures(store, made);
    expect(await at(30)).toHaveLength(1);
    putDataset(store, 3, 'FAILED', 'dlv-3', { shortCode: 'E_OTHER' });
    made.clock.now = new Date(T0.getTime() + 45 * MINUTE);
    expect(await made.cycle()).toEqual([]); // held
    expect(await at(60)).toEqual([]); // due, but quiet
    const released = await at(120); // 14:00: quiet hours end
    expect(bodies(released)).toEqual([
      'summary: 1 dataset FAILED during quiet hours | acme: Normalize failed: E_OTHER: Dataset 3.',
      'reminder: Still failing, nobody on it — Normalize failed: E_AUTH_FAILED | 2 datasets from Bluefin Exchange Feeds · reminder 2 of 3',
    ]);
    expect(await at(149)).toEqual([]);
    expect(bodies(await at(150))).toEqual([
      'reminder: Still failing, nobody on it — Normalize failed: E_AUTH_FAILED | 2 datasets from Bluefin Exchange Feeds · reminder 3 of 3',
      'reminder: Still failing, nobody on it — Normalize failed: E_OTHER | Dataset 3 · reminder 1 of 3',
    ]);
  });

  it('for failures that arrived during a pause, once it ends, counted from when they were remembered', async () => {
    const { store, bench: made, at } = await bench();
    made.settings.notifications.pausedUntil = new Date(T0.getTime() + 480 * MINUTE).toISOString();
    putDataset(store, 2, 'FAILED', 'dlv-2a', { shortCode: 'E_AUTH_FAILED' });
    expect(await made.cycle()).toEqual([]);
    expect(await at(30)).toEqual([]);
    made.clock.now = new Date(T0.getTime() + 470 * MINUTE);
    putDataset(store, 3, 'FAILED', 'dlv-3a', { shortCode: 'E_LATE' });
    expect(await made.cycle()).toEqual([]);
    expect(await at(479)).toEqual([]);
    // The pause ends: ds-2 fell due long ago; ds-3 30 minutes after it was remembered.
    expect(bodies(await at(480))).toEqual([
      'reminder: Still failing, nobody on it — Normalize failed: E_AUTH_FAILED | Dataset 2 · reminder 1 of 3',
    ]);
    expect(await at(499)).toEqual([]);
    expect((await at(500)).map((a) => a.body)).toEqual(['Dataset 3 · reminder 1 of 3']);
    expect((await at(510)).map((a) => a.body)).toEqual(['Dataset 2 · reminder 2 of 3']);
  });

  it('never for failures silenced by a snooze, nor once they recover or fail again', async () => {
    const { store, bench: made, at } = await bench();
    putDataset(store, 1, 'HEALTHY', 'dlv-1a');
    setSnooze(store, ORG, 'ds-1', '1h', made.clock.now);
    putDataset(store, 1, 'FAILED', 'dlv-1b');
    expect(await made.cycle()).toEqual([]);
    expect(await at(200)).toEqual([]);
    putDataset(store, 3, 'FAILED', 'dlv-3a', { shortCode: 'E_A' });
    putDataset(store, 4, 'FAILED', 'dlv-4a', { shortCode: 'E_B' });
    expect(await made.cycle()).toHaveLength(2);
    putDataset(store, 3, 'HEALTHY', 'dlv-3b');
    // Another cause (E_B was notified a moment ago: its next failure would wait for its cool-down).
    putDataset(store, 4, 'FAILED', 'dlv-4b', { shortCode: 'E_C' });
    expect((await made.cycle()).map((a) => a.title)).toEqual(['FAILED: Dataset 4']);
    // ds-4's new failure is reminded 30 minutes after its own announcement, not the old one's.
    expect(await at(229)).toEqual([]);
    expect((await at(230)).map((a) => a.body)).toEqual(['Dataset 4 · reminder 1 of 3']);
  });

  it('are off with reminderMinutes 0, and follow the setting when it changes', async () => {
    const { store, bench: made, at } = await bench();
    made.settings.triage.reminderMinutes = 0;
    await twoAuthFailures(store, made);
    expect(await at(30)).toEqual([]);
    expect(await at(1000)).toEqual([]);
    made.settings.triage.reminderMinutes = 5;
    expect(await at(1001)).toHaveLength(1);
    expect(await at(1005)).toEqual([]);
    expect(await at(1006)).toHaveLength(1);
  });

  it('more than three causes due at once make one reminder of the top causes', async () => {
    const { store, bench: made, at } = await bench();
    ['E_A', 'E_A', 'E_B', 'E_C', 'E_D'].forEach((shortCode, i) =>
      putDataset(store, i + 1, 'FAILED', `dlv-${i + 1}`, { shortCode }),
    );
    expect(await made.cycle()).toHaveLength(1); // a summary
    expect(bodies(await at(30))).toEqual([
      'reminder: Still failing, nobody on it — 5 datasets | Normalize failed: E_A (2), Normalize failed: E_B (1), Normalize failed: E_C (1) and 1 more cause · reminder 1 of 3',
    ]);
    expect((await at(30)).length).toBe(0);
  });
});
