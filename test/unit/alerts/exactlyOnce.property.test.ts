/**
 * Every delivery announced at most once, ever, and none lost (docs/architecture.md#notifications), as a property over random
 * sequences of what happens to an org: new failures with random causes (or none stored yet),
 * recoveries, re-failures with new deliveries, acknowledgements, snoozes, pause, quiet hours, time passing, failed syncs,
 * engine restarts over the same data directory (a real store on disk), and kills — right after a sync's
 * commit, or between the decision being saved and its notification shown (the files are copied as the
 * kill leaves them and the next engine starts from the copy).
 *
 * Asserted: no delivery is in two announcements, none is notified or reminded once acknowledged (those a kill swallowed included: their decision was
 * saved), no failure is reminded more than three times, no cause is notified again less than a
 * cool-down (COOL_DOWN_MS) after it was last notified (a first sync's or a night's summary excepted: they
 * are never delayed; a first sync's starts no cool-down), and once notifications are back on (no pause, no quiet hours) and a cool-down has
 * passed, every delivery still FAILED is announced — batched ones released — unless a pause or a snooze
 * was in force while it was current at some decision, it was acknowledged, or a kill swallowed its announcement (at most once
 * means a kill between saving and showing loses that notification rather than repeating it).
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SETTINGS, type Settings } from '../../../shared/settings';
import { COOL_DOWN_MS } from '../../../electron/alerts/coolDown';
import type { Announcement } from '../../../electron/alerts/types';
import { acknowledgeDataset } from '../../../electron/knowledge/acknowledge';
import { Store } from '../../../electron/store/database';
import { clearSnooze, listSnoozes, setSnooze } from '../../../electron/store/tables/snoozes';
import { ORG, alertsBench, putDataset, type AlertsBench } from '../../helpers/alerts';

const DATASETS = 4;
const MINUTE = 60_000;

type Action =
  | { kind: 'fail'; n: number; cause: 'E_A' | 'E_B' | 'unknown' }
  | { kind: 'recover'; n: number }
  | { kind: 'cycle'; firstSync: boolean }
  | { kind: 'failedCycle' }
  | { kind: 'tick' }
  | { kind: 'wait'; minutes: number }
  | { kind: 'snooze'; n: number; how: '1h' | 'healthy' | 'off' }
  | { kind: 'ack'; n: number }
  | { kind: 'pause'; how: 'forever' | '1h' | 'off' }
  | { kind: 'quiet'; on: boolean }
  | { kind: 'restart' }
  | { kind: 'killAfterCommit' }
  | { kind: 'killBeforeShowing' };

const n = fc.integer({ min: 1, max: DATASETS });
const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('fail' as const),
      n,
      cause: fc.constantFrom('E_A' as const, 'E_B' as const, 'unknown' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('recover' as const), n }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('cycle' as const),
      firstSync: fc.oneof(
        { weight: 9, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'failedCycle' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'tick' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('wait' as const),
      // Within a cool-down as often as beyond it.
      minutes: fc.oneof(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 90 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('snooze' as const),
      n,
      how: fc.constantFrom('1h' as const, 'healthy' as const, 'off' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('pause' as const),
      how: fc.constantFrom('forever' as const, '1h' as const, 'off' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('quiet' as const), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('ack' as const), n }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'killAfterCommit' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'killBeforeShowing' as const }) },
);

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Deliveries an announcement tells of (reminders and contact notices are not announcements of one). */
function deliveriesOf(announcement: Announcement): string[] {
  switch (announcement.kind) {
    case 'failed':
      return [announcement.dataset.deliveryId];
    case 'cause':
    case 'summary':
      return announcement.datasets.map((dataset) => dataset.deliveryId);
    default:
      return [];
  }
}

/**
 * The causes an announcement notifies, whether the cool-down applies to it (a first sync's and a night's
 * summaries are never delayed), and whether it starts one (all but a first sync's summary, which tells
 * what was failing already). Reminders and contact notices are not notifications of a cause.
 */
function causesOf(announcement: Announcement): { causeIds: string[]; coolsDown: boolean; starts: boolean } {
  switch (announcement.kind) {
    case 'failed':
    case 'cause':
      return { causeIds: [announcement.incidentId], coolsDown: true, starts: true };
    case 'summary':
      return {
        causeIds: announcement.causes.map((cause) => cause.incidentId),
        coolsDown: announcement.cause === 'many',
        starts: announcement.cause !== 'first-sync',
      };
    default:
      return { causeIds: [], coolsDown: false, starts: false };
  }
}

/** One org's life; the engine and its store are replaced at each restart or kill. */
class World {
  store!: Store;
  bench!: AlertsBench;
  settings: Settings = structuredClone(DEFAULT_SETTINGS);
  now = new Date('2026-11-21T12:00:00.000Z');
  /** Each dataset's current status and delivery. */
  datasets = new Map<number, { status: string; deliveryId: string }>();
  deliveries = 0;
  told: string[] = [];
  swallowed = new Set<string>();
  excused = new Set<string>();
  reminders = new Map<string, number>();
  /** Deliveries acknowledged (an acknowledgement holds while its delivery is the dataset's FAILED one). */
  acknowledged = new Set<string>();
  /** Announcements of a delivery after it was acknowledged. */
  toldAfterAck: string[] = [];
  /** When each cause was last notified (swallowed notifications included: their decision was saved). */
  lastNotified = new Map<string, number>();
  /** Notifications of a cause less than a cool-down after its last one. */
  tooSoon: string[] = [];
  private swallowing = false;

  constructor(private dataDir: string) {}

  async open(): Promise<void> {
    this.store = await Store.open({ dataDir: this.dataDir });
    this.bench = alertsBench(this.store, { now: this.now, timeZone: 'UTC' });
    this.bench.settings.notifications = this.settings.notifications;
    this.bench.settings.triage = this.settings.triage;
    this.bench.alerts.onAnnouncement((announcement) => {
      for (const deliveryId of deliveriesOf(announcement))
        if (this.swallowing) this.swallowed.add(deliveryId);
        else this.told.push(deliveryId);
      const covered =
        announcement.kind === 'reminder'
          ? announcement.datasets.map((dataset) => dataset.deliveryId)
          : deliveriesOf(announcement);
      for (const deliveryId of covered)
        if (this.acknowledged.has(deliveryId)) this.toldAfterAck.push(`${announcement.kind} ${deliveryId}`);
      const at = Date.parse(announcement.at);
      const { causeIds, coolsDown, starts } = causesOf(announcement);
      for (const causeId of causeIds) {
        const last = this.lastNotified.get(causeId);
        if (coolsDown && last !== undefined && at - last < COOL_DOWN_MS)
          this.tooSoon.push(`${causeId} at ${announcement.at}, ${(at - last) / MINUTE} min after the last`);
        if (starts) this.lastNotified.set(causeId, at);
      }
      if (announcement.kind === 'reminder')
        for (const dataset of announcement.datasets)
          this.reminders.set(dataset.deliveryId, (this.reminders.get(dataset.deliveryId) ?? 0) + 1);
    });
  }

  /** Before the engine decides: what a pause or a snooze in force now excuses from being announced. */
  private noteExcuses(): void {
    const paused =
      this.settings.notifications.pausedUntil !== null &&
      (this.settings.notifications.pausedUntil === 'forever' ||
        Date.parse(this.settings.notifications.pausedUntil) > this.now.getTime());
    const snoozed = new Set(listSnoozes(this.store, ORG, this.now).map((snooze) => snooze.datasetId));
    for (const [k, dataset] of this.datasets)
      if (dataset.status === 'FAILED' && (paused || snoozed.has(`ds-${k}`)))
        this.excused.add(dataset.deliveryId);
  }

  async cycle(firstSync = false): Promise<void> {
    this.noteExcuses();
    this.bench.clock.now = this.now;
    await this.bench.cycle({ kind: firstSync ? 'crawl' : 'poll', firstSync });
  }

  async tick(): Promise<void> {
    this.noteExcuses();
    this.bench.clock.now = this.now;
    await this.bench.alerts.tick();
  }

  put(k: number, status: string, cause?: 'E_A' | 'E_B' | 'unknown'): void {
    const deliveryId = `dlv-${k}-${++this.deliveries}`;
    putDataset(this.store, k, status, deliveryId, {
      now: this.now,
      tasks: cause !== 'unknown',
      shortCode: cause === 'unknown' ? undefined : cause,
    });
    this.datasets.set(k, { status, deliveryId });
  }

  /** A restart: the engine stops, the store is saved and closed, and both start again on the folder. */
  async restart(): Promise<void> {
    await this.bench.alerts.stop();
    await this.store.close();
    await this.open();
  }

  /** A kill: the files as they are on disk now are all the next engine has. */
  async kill(): Promise<void> {
    const copy = mkdtempSync(join(tmpdir(), 'dh-once-'));
    dirs.push(copy);
    cpSync(this.dataDir, copy, { recursive: true });
    const dead = this.store;
    await this.bench.alerts.stop();
    this.dataDir = copy;
    await this.open();
    await dead.close();
  }

  async run(step: Action): Promise<void> {
    switch (step.kind) {
      case 'fail':
        return this.put(step.n, 'FAILED', step.cause);
      case 'recover':
        return this.put(step.n, 'HEALTHY');
      case 'cycle':
        return this.cycle(step.firstSync);
      case 'failedCycle':
        this.bench.clock.now = this.now;
        await this.bench.cycle({ outcome: 'failed', error: 'the remote is unreachable' });
        return;
      case 'tick':
        return this.tick();
      case 'wait':
        this.now = new Date(this.now.getTime() + step.minutes * MINUTE);
        return;
      case 'snooze':
        if (!this.datasets.has(step.n)) return;
        if (step.how === 'off') clearSnooze(this.store, ORG, `ds-${step.n}`);
        else setSnooze(this.store, ORG, `ds-${step.n}`, step.how, this.now);
        return;
      case 'pause':
        this.settings.notifications.pausedUntil =
          step.how === 'off'
            ? null
            : step.how === 'forever'
              ? 'forever'
              : new Date(this.now.getTime() + 60 * MINUTE).toISOString();
        return;
      case 'ack': {
        const dataset = this.datasets.get(step.n);
        if (dataset?.status !== 'FAILED') return;
        acknowledgeDataset(this.store, ORG, `ds-${step.n}`, null, { by: 'sam', now: this.now });
        this.acknowledged.add(dataset.deliveryId);
        this.excused.add(dataset.deliveryId);
        // Saved before it is confirmed (as the window's and the CLI's acknowledgements are).
        await this.store.flush();
        return;
      }
      case 'quiet':
        // All day but a minute: quiet until turned off.
        this.settings.notifications.quietHours = { enabled: step.on, start: '00:00', end: '23:59' };
        return;
      case 'restart':
        return this.restart();
      case 'killAfterCommit':
        // The sync's commit reached the disk; the process died before its cycle was announced.
        await this.store.flush();
        return this.kill();
      case 'killBeforeShowing':
        // The sync's commit is on disk; the decision is saved (the engine flushes before it emits);
        // the notifications never show.
        await this.store.flush();
        this.swallowing = true;
        try {
          await this.cycle();
        } finally {
          this.swallowing = false;
        }
        return this.kill();
    }
  }

  /**
   * Notifications back on, a last cycle and tick, and a tick once a cool-down has passed: the rest of
   * what is FAILED must be told now (what a cool-down batched included).
   */
  async settle(): Promise<void> {
    this.settings.notifications.pausedUntil = null;
    this.settings.notifications.quietHours = { enabled: false, start: '00:00', end: '23:59' };
    await this.tick();
    await this.cycle();
    this.now = new Date(this.now.getTime() + COOL_DOWN_MS);
    await this.tick();
  }
}

describe('announced at most once, ever, and never lost', () => {
  it('holds over random cycles, restarts and kills', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 30 }), async (steps) => {
        const dataDir = mkdtempSync(join(tmpdir(), 'dh-once-'));
        dirs.push(dataDir);
        const world = new World(dataDir);
        await world.open();
        try {
          for (const step of steps) await world.run(step);
          await world.settle();
          const told = world.told;
          expect(new Set(told).size, `told twice: ${told.join(' ')}`).toBe(told.length);
          for (const deliveryId of told) expect(world.swallowed.has(deliveryId)).toBe(false);
          expect(world.tooSoon, 'notified again within the cool-down').toEqual([]);
          expect(world.toldAfterAck, 'told of once acknowledged').toEqual([]);
          for (const [deliveryId, count] of world.reminders)
            expect(count, `reminders of ${deliveryId}`).toBeLessThanOrEqual(3);
          for (const [k, dataset] of world.datasets) {
            if (dataset.status !== 'FAILED') continue;
            const { deliveryId } = dataset;
            const accounted =
              told.includes(deliveryId) || world.swallowed.has(deliveryId) || world.excused.has(deliveryId);
            expect(accounted, `ds-${k}'s ${deliveryId} was never announced`).toBe(true);
          }
        } finally {
          await world.bench.alerts.stop();
          await world.store.close();
        }
      }),
      { numRuns: 40 },
    );
  }, 240_000);
});
