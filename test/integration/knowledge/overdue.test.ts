/**
 * Overdue (unverified), end to end (issue 14 point 3, docs/architecture.md#deadlines): a real SourcesSync mirrors the
 * loopback remote simulator under a manual clock, the on-call service and the alerter read it as
 * the app wires them (runEngine's overdue count for the tray, the RPC's rows). Synced: fresh, nothing
 * overdue. The remote stops answering and the clock moves past three poll intervals and past deadlines:
 * the datasets whose deadlines passed are overdue with the counts a minute-by-minute walk of their
 * schedules gives (written here, apart from croner and the deadline clock), the tray says so, nothing is
 * announced but the one "lost contact", and the mirrored records stay what the remote said. The remote
 * answers again: one successful cycle clears it all.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Alerter } from '../../../electron/alerts/alerter';
import type { Announcement } from '../../../electron/alerts/types';
import { overdueInTotal } from '../../../electron/engine/runEngine';
import { OnCallKnowledge } from '../../../electron/knowledge/service';
import { createDispatch } from '../../../electron/rpc/dispatch';
import { createRpcHandlers } from '../../../electron/rpc/handlers';
import { memorySettings } from '../../../electron/store/tables/settings';
import { SourcesSync } from '../../../electron/sync/sourcesSync';
import type { DatasetRow } from '../../../shared/rows';
import type { DatasetRecord, DeadlineConfig } from '../../../shared/schemas';
import { DEFAULT_SETTINGS } from '../../../shared/settings';
import { overdueText } from '../../../shared/upcoming';
import { HandTimers } from '../../helpers/alerts';
import { ORG, SIM_KEY, START, allRecords, closeBenches, syncBench } from '../../helpers/sync';

afterEach(closeBenches);

const MINUTE = 60_000;
const SETTLED = new Set(['HEALTHY', 'DELIVERED_LATE', 'MISSING', 'FAILED']);

const formats = new Map<string, Intl.DateTimeFormat>();
/** The wall-clock fields of an instant in a zone ("" is UTC), with weekday 0 = Sunday. */
function wallClock(ms: number, zone: string): Record<string, number> {
  const timeZone = zone === '' ? 'UTC' : zone;
  let format = formats.get(timeZone);
  if (!format)
    formats.set(
      timeZone,
      (format = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        weekday: 'short',
      })),
    );
  const parts = Object.fromEntries(format.formatToParts(ms).map((part) => [part.type, part.value]));
  return {
    minute: Number(parts.minute),
    hour: Number(parts.hour),
    dayOfTheMonth: Number(parts.day),
    month: Number(parts.month),
    year: Number(parts.year),
    dayOfWeek: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(parts.weekday!),
  };
}

/** Whether the minute is a deadline of the demo's schedules (each field a number or `*`; Vixie day rule). */
function isDeadline(config: DeadlineConfig, ms: number): boolean {
  const at = wallClock(ms, config.timezone);
  const field = (name: keyof typeof at) => {
    const value = config[name as keyof DeadlineConfig];
    if (value === '*' || value === '') return true;
    return name === 'dayOfWeek' ? Number(value) % 7 === at[name] : Number(value) === at[name];
  };
  const days =
    config.dayOfTheMonth !== '*' && config.dayOfWeek !== '*'
      ? field('dayOfTheMonth') || field('dayOfWeek')
      : field('dayOfTheMonth') && field('dayOfWeek');
  return field('minute') && field('hour') && field('month') && field('year') && days;
}

/**
 * What the test expects, from the mirrored records: each dataset's deadlines in (since, now], since =
 * the later of the last success and its newest settled delivery's deadline, by a walk over the minutes.
 * (No daylight-saving change falls in the test's window.)
 */
function expectedOverdue(records: DatasetRecord[], lastSuccess: number, now: number) {
  const expected = new Map<string, { datasetName: string | null; deadlines: number; since: string }>();
  for (const record of records) {
    const config = record.deliveryEventList[0]?.processingDeadlineConfig;
    if (!config) continue;
    const settled = record.deliveryEventList
      .filter((event) => event.status !== null && SETTLED.has(event.status) && event.deliveryDeadline)
      .map((event) => Date.parse(event.deliveryDeadline!));
    const since = Math.max(lastSuccess, ...settled);
    const passed: number[] = [];
    for (let at = Math.floor(since / MINUTE) * MINUTE + MINUTE; at <= now; at += MINUTE)
      if (isDeadline(config, at)) passed.push(at);
    if (passed.length > 0)
      expected.set(record.datasetId, {
        datasetName: record.datasetName,
        deadlines: passed.length,
        since: new Date(passed[0]!).toISOString(),
      });
  }
  return expected;
}

describe('overdue (unverified) while the remote does not answer', () => {
  it('appears with the right counts once the data is stale, grows as deadlines pass, is never announced, and clears at the next sync', async () => {
    const bench = await syncBench();
    const now = () => new Date(bench.clock.now());
    const sync = new SourcesSync({
      store: bench.store,
      secrets: { apiKeyFor: () => SIM_KEY, hint: '' },
      now,
      intervals: { pollMs: MINUTE, crawlMs: 15 * MINUTE },
      sleep: async () => {},
      random: () => 0.5,
      timers: { setTimeout: () => 0, clearTimeout: () => {} },
    });
    const knowledge = new OnCallKnowledge({ store: bench.store, now, sources: () => sync.states() });
    // Reminders off: the remote's own FAILED datasets would be reminded meanwhile (legitimately).
    const settings = { ...DEFAULT_SETTINGS, triage: { ...DEFAULT_SETTINGS.triage, reminderMinutes: 0 } };
    const alerts = new Alerter({
      store: bench.store,
      sync,
      settings: () => settings,
      now,
      timeZone: 'UTC',
      timers: new HandTimers(),
      onError: (error) => {
        throw error;
      },
      overdue: () => overdueInTotal(knowledge, sync.states()),
    });
    const dispatch = createDispatch(
      createRpcHandlers({
        store: bench.store,
        sync,
        secrets: { apiKeyFor: () => SIM_KEY, hint: '' },
        now,
        runtime: { apiUrl: 'http://127.0.0.1:1', dataDir: '/nonexistent', version: '0.1.0' },
        overridden: [],
        reloadSync: async () => undefined,
        settings: memorySettings(),
        knowledge,
      }),
    );
    const heard: Announcement[] = [];
    alerts.onAnnouncement((announcement) => heard.push(announcement));
    const rows = async () => {
      const page = (await dispatch('datasets.rows', {
        orgId: ORG,
        filters: [],
        search: '',
        sort: '',
        pageToken: null,
        pageSize: 1000,
      })) as { rows: DatasetRow[] };
      return page.rows;
    };
    const mirrored = () => allRecords(bench.local, '&latestDeliveriesCount=100');
    try {
      sync.start();
      alerts.start();
      // Synced: fresh, nothing overdue.
      expect((await sync.syncNow())[0]!.outcome).toBe('ok');
      await alerts.refresh();
      expect(await knowledge.overdue(ORG)).toMatchObject({ stale: false, datasets: [], deadlines: 0 });
      expect(alerts.trayState).toMatchObject({ level: expect.not.stringMatching('stale') });
      expect(alerts.trayState!.overdue.deadlines).toBe(0);
      const records = await mirrored();
      expect(records).toHaveLength(60);
      const before = heard.length;

      // The remote stops answering. One failed poll 90 s later is no loss of contact yet: nothing overdue.
      bench.simulator.faults.inject({ kind: 'reset' }, { times: 1_000_000 });
      bench.clock.advance(90_000);
      const runner = sync.runner(bench.source.id)!;
      expect((await runner.runCycle('poll')).outcome).toBe('failed');
      expect(await knowledge.overdue(ORG)).toMatchObject({ stale: false, datasets: [], deadlines: 0 });

      // Four hours on (far past three poll intervals and past deadlines).
      bench.clock.advance(4 * 3_600_000 - 90_000);
      expect((await runner.runCycle('poll')).outcome).toBe('failed');
      await alerts.tick();
      const expected = expectedOverdue(records, START, bench.clock.now());
      const total = [...expected.values()].reduce((sum, entry) => sum + entry.deadlines, 0);
      expect(expected.size).toBeGreaterThan(0);
      const summary = await knowledge.overdue(ORG);
      expect(summary).toMatchObject({ stale: true, lastSuccessAt: new Date(START).toISOString() });
      expect(new Map(summary.datasets.map(({ datasetId, ...rest }) => [datasetId, rest]))).toEqual(expected);
      expect(summary.deadlines).toBe(total);
      expect(await dispatch('overdue.get', { orgId: ORG })).toEqual(summary);
      // The tray (grey: stale) says it; its menu item opens the datasets.
      expect(alerts.trayState).toMatchObject({
        level: 'stale',
        overdue: { deadlines: total, datasets: expected.size, orgId: ORG },
      });
      expect(alerts.trayState!.tooltip).toContain(overdueText(total));
      // The list's rows carry the mark beside the remote's status, which stays what the remote said.
      const marked = await rows();
      for (const row of marked) {
        const entry = expected.get(row.datasetId);
        expect({ deadlines: row.overdueDeadlines, since: row.overdueSince }).toEqual(
          entry ? { deadlines: entry.deadlines, since: entry.since } : { deadlines: 0, since: null },
        );
        const record = records.find((r) => r.datasetId === row.datasetId)!;
        expect(row.status).toBe(record.latestDeliveryStatus);
      }
      expect(await mirrored()).toEqual(records);
      // Announced meanwhile: the one "lost contact", no notice per overdue dataset.
      expect(heard.slice(before).map((announcement) => announcement.kind)).toEqual(['contact-lost']);

      // Half an hour later, still offline and without a cycle: the tick counts the deadlines passed since.
      bench.clock.advance(30 * MINUTE);
      await alerts.tick();
      const later = expectedOverdue(records, START, bench.clock.now());
      const laterTotal = [...later.values()].reduce((sum, entry) => sum + entry.deadlines, 0);
      expect(laterTotal).toBeGreaterThan(total);
      expect(alerts.trayState!.overdue.deadlines).toBe(laterTotal);
      expect(alerts.trayState!.tooltip).toContain(overdueText(laterTotal));
      expect(heard.slice(before).map((announcement) => announcement.kind)).toEqual(['contact-lost']);

      // The remote answers again: one successful cycle clears it.
      bench.simulator.faults.clear();
      expect((await sync.syncNow())[0]!.outcome).toBe('ok');
      await alerts.refresh();
      expect(await knowledge.overdue(ORG)).toMatchObject({ stale: false, datasets: [], deadlines: 0 });
      expect(alerts.trayState!.overdue.deadlines).toBe(0);
      expect(alerts.trayState!.tooltip).not.toContain('deadline');
      expect((await rows()).filter((row) => row.overdueDeadlines > 0)).toEqual([]);
      expect(heard.slice(before).map((announcement) => announcement.kind)).toContain('contact-regained');
      expect(heard.some((announcement) => /overdue|deadlines? passed/i.test(announcement.body))).toBe(false);
    } finally {
      await alerts.stop();
      await sync.stop();
    }
  });
});
