/**
 * Source contact (docs/architecture.md#notifications) on the injected clock with the sources' states in the test's hands: one
 * notice when a source's data turns stale (no success for three poll intervals, its cycles failing or
 * not; a single failed cycle is none), one when it syncs again, never repeated
 * within an outage (also across a restart), recorded in sync_outages for the timeline; pause and quiet
 * hours apply.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Announcement } from '../../../electron/alerts/types';
import { Store } from '../../../electron/store/database';
import { openOutages } from '../../../electron/store/tables/outages';
import { datasetTimeline } from '../../../electron/store/tables/timeline';
import type { SourceState } from '../../../shared/sync';
import { ORG, alertsBench, putDataset, sourceState, type AlertsBench } from '../../helpers/alerts';

const stores: Store[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const MINUTE = 60_000;
const T0 = new Date('2026-11-21T12:00:00.000Z');
const iso = (minutes: number) => new Date(T0.getTime() + minutes * MINUTE).toISOString();

/** The bench at `minutes` after T0 with the source in `state`; a tick, or the cycle the state ends. */
function driver(made: AlertsBench) {
  const set = (minutes: number, state: Partial<SourceState>) => {
    made.clock.now = new Date(iso(minutes));
    made.sync.setState(sourceState(state));
  };
  return {
    tick: (minutes: number, state: Partial<SourceState>) => {
      set(minutes, state);
      return made.alerts.tick();
    },
    ok: (minutes: number) => {
      set(minutes, { lastSuccessAt: iso(minutes) });
      return made.cycle({ endedAt: iso(minutes) });
    },
    failed: (minutes: number, lastSuccessAt: string | null, error = 'the remote is unreachable') => {
      set(minutes, { phase: 'offline', lastSuccessAt, lastError: error, lastErrorAt: iso(minutes) });
      return made.cycle({ outcome: 'failed', error });
    },
  };
}

const words = (made: Announcement[]) => made.map((a) => `${a.kind}: ${a.title} | ${a.body}`);

async function memoryBench(): Promise<AlertsBench> {
  const store = await Store.open({ dataDir: null });
  stores.push(store);
  return alertsBench(store, { now: T0 });
}

describe('source contact', () => {
  it('one notice when the data turns stale, none more within the outage, one when it syncs again', async () => {
    const made = await memoryBench();
    const at = driver(made);
    expect(await at.ok(0)).toEqual([]);
    // Three poll intervals (60 s) without a success: stale.
    expect(await at.tick(3, { lastSuccessAt: iso(0) })).toEqual([]);
    const lost = await at.tick(3.5, { lastSuccessAt: iso(0) });
    expect(lost).toEqual([
      expect.objectContaining({
        kind: 'contact-lost',
        orgId: ORG,
        sourceId: `${ORG}-remote`,
        sourceName: 'Acme',
        lastSuccessAt: iso(0),
        lostAt: iso(3.5),
        title: 'Lost contact with Acme',
        body: 'Last synced 3 minutes ago. Its data is not current.',
        target: { view: 'datasets', orgId: ORG },
      }),
    ]);
    // Stale, then failing, for an hour: the same outage.
    expect(await at.tick(10, { lastSuccessAt: iso(0) })).toEqual([]);
    expect(await at.failed(30, iso(0))).toEqual([]);
    expect(await at.tick(60, { phase: 'offline', lastSuccessAt: iso(0), lastError: 'down' })).toEqual([]);
    expect(words(await at.ok(62))).toEqual([
      'contact-regained: Contact regained with Acme | Synced again after 1 hour out of contact; its data is current.',
    ]);
    expect(await at.ok(63)).toEqual([]);
    expect(await at.tick(64, { lastSuccessAt: iso(63) })).toEqual([]);
    expect(openOutages(made.store)).toEqual([]);
  });

  it('a source whose cycle just succeeded is in contact, however long that cycle took', async () => {
    const made = await memoryBench();
    const at = driver(made);
    await at.ok(0);
    // A crawl that started at minute 1 and took five minutes (more than three poll intervals).
    made.clock.now = new Date(iso(6));
    made.sync.setState(sourceState({ lastSuccessAt: iso(1) }));
    expect(await made.cycle({ kind: 'crawl', startedAt: iso(1), endedAt: iso(6) })).toEqual([]);
  });

  it('a single failed sync is no loss; failing syncs lose contact once the data is stale, saying why; the dataset timeline shows the outage', async () => {
    const made = await memoryBench();
    const store = made.store;
    putDataset(store, 1, 'HEALTHY', 'dlv-1');
    const at = driver(made);
    await at.ok(0);
    // One 503, then a success: no lost/regained pair.
    expect(await at.failed(1, iso(0), 'HTTP 503 from the remote')).toEqual([]);
    expect(await at.ok(2)).toEqual([]);
    expect(await at.failed(3, iso(2), 'HTTP 503 from the remote')).toEqual([]);
    expect(await at.failed(4, iso(2), 'HTTP 503 from the remote')).toEqual([]);
    expect(await at.failed(5, iso(2), 'HTTP 503 from the remote')).toEqual([]);
    expect(words(await at.failed(5.5, iso(2), 'HTTP 503 from the remote'))).toEqual([
      'contact-lost: Lost contact with Acme | Last synced 3 minutes ago — HTTP 503 from the remote. Its data is not current.',
    ]);
    expect(await at.failed(6, iso(2))).toEqual([]);
    expect(words(await at.ok(20))).toEqual([
      'contact-regained: Contact regained with Acme | Synced again after 18 minutes out of contact; its data is current.',
    ]);
    const outages = datasetTimeline(store, ORG, 'ds-1', 50).filter((entry) => entry.kind === 'outage');
    expect(outages).toEqual([
      expect.objectContaining({ at: iso(5.5), text: `Lost contact with Acme; regained at ${iso(20)}` }),
    ]);
  });

  it('a stopped source (its key rejected) loses contact once its data is stale, not before', async () => {
    const made = await memoryBench();
    const at = driver(made);
    await at.ok(0);
    const stopped = { stopped: true, phase: 'error' as const, lastSuccessAt: iso(0), lastError: 'HTTP 401' };
    expect(await at.tick(1, stopped)).toEqual([]);
    expect(await at.tick(3, stopped)).toEqual([]);
    expect(words(await at.tick(3.5, stopped))).toEqual([
      'contact-lost: Lost contact with Acme | Last synced 3 minutes ago — HTTP 401. Its data is not current.',
    ]);
    expect(await at.tick(30, stopped)).toEqual([]);
  });

  it('says "never" for a source that never synced, and judges a source only once a cycle finished since start', async () => {
    const made = await memoryBench();
    const at = driver(made);
    // At start the data is as old as when the app was closed: not judged until the first cycle.
    expect(await at.tick(0, { lastSuccessAt: null })).toEqual([]);
    expect(await at.tick(10, { phase: 'error', lastSuccessAt: null, lastError: 'bad' })).toEqual([]);
    // Never synced: out of contact three poll intervals after its first cycle seen.
    expect(await at.failed(11, null, 'HTTP 401: the API key was rejected')).toEqual([]);
    expect(await at.failed(14, null, 'HTTP 401: the API key was rejected')).toEqual([]);
    expect(words(await at.failed(15, null, 'HTTP 401: the API key was rejected'))).toEqual([
      'contact-lost: Lost contact with Acme | Last synced never — HTTP 401: the API key was rejected. Its data is not current.',
    ]);
  });

  it('is not announced again after a restart during the outage; the regain is', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dh-contact-'));
    dirs.push(dataDir);
    const first = await Store.open({ dataDir });
    const before = alertsBench(first, { now: T0 });
    await driver(before).ok(0);
    expect(await driver(before).failed(5, iso(0))).toHaveLength(1);
    await first.close();
    const reopened = await Store.open({ dataDir });
    stores.push(reopened);
    const after = alertsBench(reopened, { now: T0 });
    const at = driver(after);
    expect(await at.failed(30, iso(0))).toEqual([]);
    expect(await at.tick(40, { phase: 'offline', lastSuccessAt: iso(0) })).toEqual([]);
    expect(words(await at.ok(45))).toEqual([
      'contact-regained: Contact regained with Acme | Synced again after 45 minutes out of contact; its data is current.',
    ]);
  });

  it('while paused: outages are recorded, not announced', async () => {
    const made = await memoryBench();
    const at = driver(made);
    await at.ok(0);
    made.settings.notifications.pausedUntil = 'forever';
    expect(await at.failed(4, iso(0))).toEqual([]);
    expect(openOutages(made.store)).toEqual([expect.objectContaining({ lostAt: iso(4), regainedAt: null })]);
    expect(await at.ok(10)).toEqual([]);
    expect(openOutages(made.store)).toEqual([]);
    made.settings.notifications.pausedUntil = null;
    expect(await at.tick(11, { lastSuccessAt: iso(10) })).toEqual([]);
  });

  it('in quiet hours: a loss is held and announced when they end if contact is still lost, dropped if it came back', async () => {
    const made = await memoryBench();
    const at = driver(made);
    // Quiet 12:30–13:00 UTC.
    made.settings.notifications.quietHours = { enabled: true, start: '12:30', end: '13:00' };
    await at.ok(0);
    expect(await at.failed(31, iso(0))).toEqual([]);
    expect(await at.tick(59, { phase: 'offline', lastSuccessAt: iso(0) })).toEqual([]);
    expect(words(await at.tick(60, { phase: 'offline', lastSuccessAt: iso(0), lastError: 'down' }))).toEqual([
      'contact-lost: Lost contact with Acme | Last synced 1 hour ago — down. Its data is not current.',
    ]);
    expect(await at.tick(61, { phase: 'offline', lastSuccessAt: iso(0) })).toEqual([]);
    expect((await at.ok(70)).map((a) => a.kind)).toEqual(['contact-regained']);

    // The next night: lost and regained within quiet hours is not announced at all (the timeline has it).
    made.settings.notifications.quietHours = { enabled: true, start: '13:30', end: '14:00' };
    expect(await at.failed(95, iso(70))).toEqual([]);
    expect(await at.ok(100)).toEqual([]);
    expect(await at.tick(120, { lastSuccessAt: iso(119) })).toEqual([]);
  });
});
