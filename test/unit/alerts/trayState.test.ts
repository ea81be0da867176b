/**
 * The tray's state (docs/architecture.md#the-tray) over a real store: the worst status among datasets that are not
 * snoozed, red only for a FAILED one nobody acknowledged, counts, the FAILED menu, and grey whenever the
 * data cannot be trusted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SETTINGS } from '../../../shared/settings';
import {
  computeTrayState,
  NO_OVERDUE,
  TRAY_FAILED_LIMIT,
  TOOLTIP_LIMIT,
  type TrayOverdue,
} from '../../../electron/alerts/trayState';
import { Alerter } from '../../../electron/alerts/alerter';
import { Store } from '../../../electron/store/database';
import { setSnooze } from '../../../electron/store/tables/snoozes';
import { acknowledge } from '../../../electron/store/tables/acknowledgements';
import { HandTimers, ORG, ReportedSync, alertsBench, putDataset, sourceState } from '../../helpers/alerts';
import { fill, fillableDisk } from '../../helpers/fullDisk';

let store: Store;
afterEach(() => store?.close());

const NOW = new Date('2026-11-21T12:00:00.000Z');
const fresh = sourceState({ lastSuccessAt: '2026-11-21T11:58:00.000Z' });

describe('tray state', () => {
  it('is red for FAILED, amber for MISSING or late, green otherwise, leaving snoozed datasets out', async () => {
    store = await Store.open({ dataDir: null });
    putDataset(store, 1, 'HEALTHY', 'd1');
    putDataset(store, 2, 'DELIVERED_LATE', 'd2');
    const tray = () => computeTrayState(store, [fresh], DEFAULT_SETTINGS, NOW);
    expect(tray().level).toBe('warning');
    putDataset(store, 3, 'FAILED', 'd3');
    expect(tray()).toMatchObject({
      level: 'failed',
      counts: { FAILED: 1, MISSING: 0, DELIVERED_LATE: 1, HEALTHY: 1, other: 0 },
      failed: [
        {
          orgId: ORG,
          datasetId: 'ds-3',
          datasetName: 'Dataset 3',
          deliveryId: 'd3',
          acknowledgedBy: null,
          acknowledgedNote: null,
        },
      ],
      failedTotal: 1,
      freshness: 'fresh',
      syncedAt: fresh.lastSuccessAt,
    });
    setSnooze(store, ORG, 'ds-3', 'healthy', NOW);
    setSnooze(store, ORG, 'ds-2', '1h', NOW);
    expect(tray()).toMatchObject({ level: 'healthy', snoozed: 2, failed: [], failedTotal: 0 });
    expect(tray().tooltip).toBe('Dataset Health · 1 healthy · synced 2 minutes ago · 2 snoozed');
    // The 1 h snooze ends: late again.
    const later = new Date(NOW.getTime() + 3_600_001);
    const stillFresh = sourceState({ lastSuccessAt: later.toISOString() });
    expect(computeTrayState(store, [stillFresh], DEFAULT_SETTINGS, later).level).toBe('warning');
  });

  it('is red only for unacknowledged FAILED datasets; acknowledged ones are counted, listed last and marked', async () => {
    store = await Store.open({ dataDir: null });
    const ack = (datasetId: string, deliveryId: string, by: string, status = 'FAILED') =>
      store.transaction(() =>
        acknowledge(store, {
          orgId: ORG,
          datasetId,
          deliveryId,
          status,
          causeId: null,
          note: null,
          by,
          at: NOW.toISOString(),
        }),
      );
    putDataset(store, 1, 'FAILED', 'd1');
    putDataset(store, 2, 'FAILED', 'd2');
    putDataset(store, 3, 'FAILED', 'd3');
    putDataset(store, 4, 'HEALTHY', 'd4');
    const tray = () => computeTrayState(store, [fresh], DEFAULT_SETTINGS, NOW);
    ack('ds-1', 'd1', 'sam');
    ack('ds-2', 'd2', 'kim');
    expect(tray()).toMatchObject({
      level: 'failed',
      failedTotal: 3,
      failedAcknowledged: 2,
      failed: [
        { datasetId: 'ds-3', acknowledgedBy: null },
        { datasetId: 'ds-1', acknowledgedBy: 'sam' },
        { datasetId: 'ds-2', acknowledgedBy: 'kim' },
      ],
    });
    expect(tray().tooltip).toBe(
      'Dataset Health · 3 FAILED (2 acknowledged), 1 healthy · synced 2 minutes ago',
    );
    // All acknowledged: the colour follows the rest (green here, amber with a late one).
    ack('ds-3', 'd3', 'sam');
    expect(tray()).toMatchObject({ level: 'healthy', failedAcknowledged: 3 });
    putDataset(store, 4, 'DELIVERED_LATE', 'd4b');
    expect(tray().level).toBe('warning');
    // A new failed delivery is a new problem: red again, whatever was acknowledged before.
    putDataset(store, 1, 'FAILED', 'd1b');
    expect(tray()).toMatchObject({ level: 'failed', failedAcknowledged: 2 });
    expect(tray().failed[0]).toMatchObject({ datasetId: 'ds-1', deliveryId: 'd1b', acknowledgedBy: null });
    // A snoozed acknowledged failure is left out of both counts.
    setSnooze(store, ORG, 'ds-2', 'healthy', NOW);
    expect(tray()).toMatchObject({ failedTotal: 2, failedAcknowledged: 1, snoozed: 1 });
  });

  it('is grey when no sync succeeded for three poll intervals, or a source fails, whatever the statuses', async () => {
    store = await Store.open({ dataDir: null });
    putDataset(store, 1, 'FAILED', 'd1');
    const at = (source = fresh, now = NOW) => computeTrayState(store, [source], DEFAULT_SETTINGS, now);
    expect(at().level).toBe('failed');
    expect(at(fresh, new Date('2026-11-21T12:01:00.000Z')).level).toBe('failed');
    const late = at(fresh, new Date('2026-11-21T12:01:00.001Z'));
    expect(late).toMatchObject({ level: 'stale', freshness: 'stale' });
    expect(late.tooltip).toContain('data is stale');
    const failing = at(sourceState({ ...fresh, phase: 'offline', lastError: 'the remote is unreachable' }));
    expect(failing).toMatchObject({ level: 'stale', freshness: 'failing' });
    expect(failing.tooltip).toContain('sync failing: the remote is unreachable');
    expect(at(sourceState({ lastSuccessAt: null })).tooltip).toContain('never synced');
    expect(computeTrayState(store, [], DEFAULT_SETTINGS, NOW)).toMatchObject({
      level: 'stale',
      tooltip: 'Dataset Health · no sources to sync',
    });
  });

  it('lists the first FAILED datasets by name for the menu, counts them all, and keeps the tooltip short', async () => {
    store = await Store.open({ dataDir: null });
    for (let n = 10; n < 10 + TRAY_FAILED_LIMIT + 5; n++) putDataset(store, n, 'FAILED', `d${n}`);
    const paused = {
      ...DEFAULT_SETTINGS,
      notifications: { ...DEFAULT_SETTINGS.notifications, pausedUntil: 'forever' },
    };
    const tray = computeTrayState(
      store,
      [sourceState({ ...fresh, phase: 'error', lastError: 'x'.repeat(300) })],
      paused,
      NOW,
    );
    expect(tray.failed).toHaveLength(TRAY_FAILED_LIMIT);
    expect(tray.failed[0]!.datasetName).toBe('Dataset 10');
    expect(tray.failedTotal).toBe(TRAY_FAILED_LIMIT + 5);
    expect(tray.pausedUntil).toBe('forever');
    expect(tray.tooltip.length).toBe(TOOLTIP_LIMIT);
    expect(tray.tooltip.endsWith('…')).toBe(true);
  });

  it('the engine tells listeners when the state changes, after cycles and source state changes', async () => {
    store = await Store.open({ dataDir: null });
    const bench = alertsBench(store, { now: NOW });
    const states: string[] = [];
    bench.alerts.onTrayState((state) => states.push(state.level));
    bench.sync.setState(fresh);
    putDataset(store, 1, 'HEALTHY', 'd1');
    await bench.cycle();
    putDataset(store, 1, 'FAILED', 'd2');
    await bench.cycle();
    await bench.cycle(); // unchanged: not told again
    expect(states).toEqual(['healthy', 'failed']);
    expect(bench.alerts.trayState?.level).toBe('failed');
    // A source going offline is heard through its state (gathered for a moment, then redrawn).
    bench.alerts.start();
    bench.sync.setState(sourceState({ ...fresh, phase: 'offline', lastError: 'down' }));
    const settle = [...bench.timers.pending.values()].find((timer) => timer.ms === 500)!;
    settle.fn();
    await bench.alerts.refresh();
    expect(states.at(-1)).toBe('stale');
    await bench.alerts.stop();
  });

  it("says when the disk refuses the store's writes, and stops saying it once it accepts them", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dh-tray-'));
    const disk = fillableDisk();
    store = await Store.open({ dataDir, openJournal: disk.openJournal });
    try {
      const bench = alertsBench(store, { now: NOW });
      bench.sync.setState(fresh);
      putDataset(store, 1, 'FAILED', 'd1');
      bench.alerts.start();
      await bench.alerts.refresh();
      expect(bench.alerts.trayState).toMatchObject({ level: 'failed', diskProblem: false });
      await fill(disk, store);
      putDataset(store, 2, 'HEALTHY', 'd2');
      await expect(store.flush()).rejects.toThrow(/ENOSPC/);
      await expect.poll(() => bench.alerts.trayState?.diskProblem).toBe(true);
      // The statuses are as current as before: the icon stays red, the tooltip says what is wrong.
      expect(bench.alerts.trayState).toMatchObject({ level: 'failed', counts: { FAILED: 1, HEALTHY: 1 } });
      expect(bench.alerts.trayState?.tooltip).toBe(
        'Dataset Health · 1 FAILED, 1 healthy · synced 2 minutes ago · changes not saved to disk',
      );
      disk.full = false;
      await store.flush();
      await expect.poll(() => bench.alerts.trayState?.diskProblem).toBe(false);
      expect(bench.alerts.trayState?.tooltip).not.toContain('disk');
      await bench.alerts.stop();
    } finally {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('says the deadlines passed since the last sync while stale, cut after the counts and age but before the rest', async () => {
    store = await Store.open({ dataDir: null });
    putDataset(store, 1, 'HEALTHY', 'd1');
    const stale = sourceState({ lastSuccessAt: '2026-11-21T11:00:00.000Z' });
    const overdue: TrayOverdue = { deadlines: 3, datasets: 2, orgId: ORG };
    const tray = computeTrayState(store, [stale], DEFAULT_SETTINGS, NOW, overdue);
    expect(tray).toMatchObject({ level: 'stale', overdue });
    expect(tray.tooltip).toBe(
      'Dataset Health · 1 healthy · synced 1 hour ago · 3 deadlines passed since the last sync · data is stale',
    );
    // A long sync error is cut, the overdue count is not.
    const failing = sourceState({ ...stale, phase: 'offline', lastError: 'x'.repeat(300) });
    const cut = computeTrayState(store, [failing], DEFAULT_SETTINGS, NOW, {
      ...overdue,
      deadlines: 1_234,
    });
    expect(cut.tooltip.length).toBe(TOOLTIP_LIMIT);
    expect(cut.tooltip).toContain('1,234 deadlines passed since the last sync · sync failing: xxx');
    // None: not a word of it.
    expect(computeTrayState(store, [stale], DEFAULT_SETTINGS, NOW).overdue).toEqual(NO_OVERDUE);
    expect(computeTrayState(store, [stale], DEFAULT_SETTINGS, NOW).tooltip).not.toContain('deadline');
  });

  it('the engine asks for the overdue count at every redraw, the tick included, and announces nothing of it', async () => {
    store = await Store.open({ dataDir: null });
    putDataset(store, 1, 'HEALTHY', 'd1');
    const sync = new ReportedSync();
    sync.setState(sourceState({ lastSuccessAt: '2026-11-21T11:00:00.000Z' }));
    const timers = new HandTimers();
    let count: TrayOverdue | Error = { deadlines: 1, datasets: 1, orgId: ORG };
    const errors: unknown[] = [];
    const alerts = new Alerter({
      store,
      sync,
      settings: () => DEFAULT_SETTINGS,
      now: () => NOW,
      timeZone: 'UTC',
      timers,
      onError: (error) => errors.push(error),
      overdue: async () => {
        if (count instanceof Error) throw count;
        return count;
      },
    });
    const heard: unknown[] = [];
    alerts.onAnnouncement((announcement) => heard.push(announcement));
    expect((await alerts.refresh()).overdue.deadlines).toBe(1);
    count = { deadlines: 4, datasets: 2, orgId: ORG };
    expect(await alerts.tick()).toEqual([]);
    expect(alerts.trayState?.tooltip).toContain('4 deadlines passed since the last sync');
    // A failing count is reported and reads as none: the tray still draws.
    count = new Error('history unreadable');
    expect((await alerts.refresh()).overdue).toEqual(NO_OVERDUE);
    expect(errors).toEqual([count]);
    expect(heard).toEqual([]);
    await alerts.stop();
  });
});
