/**
 * Overdue (unverified), docs/architecture.md#deadlines: while the org's data is stale, a dataset whose deadlines passed
 * after both the last successful sync and its newest settled delivery is overdue — the rule's edges on
 * hand-built histories: never synced, a deadline exactly at the last success, a settled delivery newer
 * than it, schedules that cannot be read, several sources, the count's cap.
 */
import { describe, expect, it } from 'vitest';
import { DeadlineClock } from '../../../electron/knowledge/deadlineClock';
import { type DatasetHistory, OrgHistory } from '../../../electron/knowledge/history';
import { MAX_COUNTED_PER_DATASET, orgFreshness, overdueDatasets } from '../../../electron/knowledge/upcoming';
import type { DeadlineConfig } from '../../../shared/schemas';
import { overdueText } from '../../../shared/upcoming';
import { sourceState } from '../../helpers/alerts';

const ORG = 'acme';
/** Hourly at :00, UTC (5 fields). */
const HOURLY: DeadlineConfig = {
  minute: '0',
  hour: '*',
  dayOfTheMonth: '*',
  month: '*',
  dayOfWeek: '*',
  year: '*',
  timezone: '',
  cronExpression: '0 * * * *',
};
/** Daily at 06:30 in London (6 fields, year last). */
const LONDON: DeadlineConfig = {
  ...HOURLY,
  minute: '30',
  hour: '6',
  timezone: 'Europe/London',
  cronExpression: '30 6 * * * *',
};
const EVERY_MINUTE: DeadlineConfig = { ...HOURLY, minute: '*', cronExpression: '* * * * *' };

const at = (iso: string) => Date.parse(iso);
/** Last success 10:00:00, now 13:30: three hourly deadlines passed (11:00, 12:00, 13:00). */
const LAST = '2026-11-21T10:00:00.000Z';
const NOW = at('2026-11-21T13:30:00.000Z');

function dataset(datasetId: string, config: DeadlineConfig, latestSettledDeadline = NaN): DatasetHistory {
  return {
    pk: 1,
    datasetId,
    name: datasetId,
    supplierId: null,
    supplierName: null,
    dataProductName: null,
    status: 'HEALTHY',
    config,
    deadlines: new Float64Array(0),
    delivered: new Float64Array(0),
    statuses: new Uint8Array(0),
    latestSettledDeadline,
  };
}

function org(...datasets: DatasetHistory[]): OrgHistory {
  return OrgHistory.of(ORG, '1', datasets);
}

const stale = { stale: true, lastSuccessAt: LAST };

describe('overdue datasets', () => {
  it('counts the deadlines after the last success up to now, oldest first as "since"', () => {
    const summary = overdueDatasets(org(dataset('a', HOURLY)), new DeadlineClock(), NOW, stale);
    expect(summary).toEqual({
      orgId: ORG,
      stale: true,
      lastSuccessAt: LAST,
      datasets: [{ datasetId: 'a', datasetName: 'a', deadlines: 3, since: '2026-11-21T11:00:00.000Z' }],
      deadlines: 3,
    });
    expect(overdueText(summary.deadlines)).toBe('3 deadlines passed since the last sync');
    expect(overdueText(1)).toBe('1 deadline passed since the last sync');
  });

  it('is empty while the data is fresh, and when the org never synced (nothing to count from)', () => {
    const history = org(dataset('a', HOURLY));
    expect(
      overdueDatasets(history, new DeadlineClock(), NOW, { stale: false, lastSuccessAt: LAST }),
    ).toMatchObject({ stale: false, datasets: [], deadlines: 0 });
    expect(
      overdueDatasets(history, new DeadlineClock(), NOW, { stale: true, lastSuccessAt: null }),
    ).toMatchObject({ stale: true, lastSuccessAt: null, datasets: [], deadlines: 0 });
  });

  it('does not count a deadline exactly at the last success, and counts one exactly at now', () => {
    const lastOnTheHour = '2026-11-21T11:00:00.000Z';
    const summary = overdueDatasets(
      org(dataset('a', HOURLY)),
      new DeadlineClock(),
      at('2026-11-21T13:00:00.000Z'),
      {
        stale: true,
        lastSuccessAt: lastOnTheHour,
      },
    );
    expect(summary.datasets).toEqual([
      { datasetId: 'a', datasetName: 'a', deadlines: 2, since: '2026-11-21T12:00:00.000Z' },
    ]);
  });

  it('counts from a settled delivery newer than the last success (that deadline is known)', () => {
    const settledAtNoon = at('2026-11-21T12:00:00.000Z');
    const older = at('2026-11-21T09:00:00.000Z');
    const summary = overdueDatasets(
      org(dataset('newer', HOURLY, settledAtNoon), dataset('older', HOURLY, older)),
      new DeadlineClock(),
      NOW,
      stale,
    );
    expect(summary.datasets).toEqual([
      { datasetId: 'newer', datasetName: 'newer', deadlines: 1, since: '2026-11-21T13:00:00.000Z' },
      { datasetId: 'older', datasetName: 'older', deadlines: 3, since: '2026-11-21T11:00:00.000Z' },
    ]);
    expect(summary.deadlines).toBe(4);
    // Settled at the newest deadline: nothing left to verify.
    const known = overdueDatasets(
      org(dataset('all-known', HOURLY, at('2026-11-21T13:00:00.000Z'))),
      new DeadlineClock(),
      NOW,
      stale,
    );
    expect(known.datasets).toEqual([]);
  });

  it('leaves out datasets whose schedule cannot be read, and those with no deadline since', () => {
    const broken = { ...HOURLY, minute: '', cronExpression: '61 * * * *' };
    const fourFields = { ...HOURLY, minute: '', cronExpression: '0 * * *' };
    const badZone = { ...HOURLY, timezone: 'Mars/Olympus_Mons' };
    const none = { ...HOURLY, minute: '', hour: '', cronExpression: '' };
    const summary = overdueDatasets(
      org(
        dataset('broken', broken),
        dataset('bad-zone', badZone),
        dataset('none', none),
        dataset('four-fields', fourFields),
        dataset('london', LONDON),
        dataset('hourly', HOURLY),
      ),
      new DeadlineClock(),
      NOW,
      stale,
    );
    // London's 06:30 passed before the last success (10:00): not overdue.
    expect(summary.datasets.map((d) => d.datasetId)).toEqual(['hourly']);
  });

  it('counts a daily deadline in its zone across the night', () => {
    const summary = overdueDatasets(
      org(dataset('london', LONDON)),
      new DeadlineClock(),
      at('2026-11-23T07:00:00.000Z'),
      stale,
    );
    // 22nd and 23rd at 06:30 London (GMT in November).
    expect(summary.datasets).toEqual([
      { datasetId: 'london', datasetName: 'london', deadlines: 2, since: '2026-11-22T06:30:00.000Z' },
    ]);
  });

  it('caps the count per dataset', () => {
    const summary = overdueDatasets(
      org(dataset('busy', EVERY_MINUTE)),
      new DeadlineClock(),
      at('2026-11-22T10:00:00.000Z'),
      stale,
    );
    expect(summary.datasets[0]).toEqual({
      datasetId: 'busy',
      datasetName: 'busy',
      deadlines: MAX_COUNTED_PER_DATASET,
      since: '2026-11-21T10:01:00.000Z',
    });
  });
});

describe('org freshness', () => {
  const now = new Date(NOW);
  const ago = (ms: number) => new Date(NOW - ms).toISOString();

  it('is stale only when no source synced within three poll intervals', () => {
    const recent = sourceState({ lastSuccessAt: ago(2 * 60_000) });
    const old = sourceState({ sourceId: 'b', lastSuccessAt: ago(4 * 60_000) });
    expect(orgFreshness(ORG, [recent], now)).toEqual({ stale: false, lastSuccessAt: recent.lastSuccessAt });
    expect(orgFreshness(ORG, [old], now)).toEqual({ stale: true, lastSuccessAt: old.lastSuccessAt });
    // Exactly three intervals: still fresh (stale *after* three).
    expect(orgFreshness(ORG, [sourceState({ lastSuccessAt: ago(3 * 60_000) })], now).stale).toBe(false);
  });

  it('a single failed cycle, or a source stopped a minute ago, is not stale yet (as "lost contact")', () => {
    const failedOnce = sourceState({
      phase: 'offline',
      lastError: 'unreachable',
      lastSuccessAt: ago(60_000),
    });
    const stopped = sourceState({ stopped: true, phase: 'error', lastSuccessAt: ago(60_000) });
    expect(orgFreshness(ORG, [failedOnce], now).stale).toBe(false);
    expect(orgFreshness(ORG, [stopped], now).stale).toBe(false);
    const failingLong = sourceState({ phase: 'offline', lastSuccessAt: ago(10 * 60_000) });
    expect(orgFreshness(ORG, [failingLong], now).stale).toBe(true);
  });

  it('with several sources: fresh while any is fresh; the newest success is where counting starts', () => {
    const a = sourceState({ sourceId: 'a', lastSuccessAt: ago(20 * 60_000) });
    const b = sourceState({ sourceId: 'b', lastSuccessAt: ago(10 * 60_000), pollIntervalMs: 5 * 60_000 });
    const never = sourceState({ sourceId: 'c', lastSuccessAt: null });
    // b's poll is 5 minutes: 10 minutes is within three of them.
    expect(orgFreshness(ORG, [a, b], now)).toEqual({ stale: false, lastSuccessAt: b.lastSuccessAt });
    const slowB = { ...b, pollIntervalMs: 60_000 };
    expect(orgFreshness(ORG, [a, slowB, never], now)).toEqual({
      stale: true,
      lastSuccessAt: b.lastSuccessAt,
    });
    // Other orgs' sources do not count; an org without sources is never stale.
    const other = sourceState({ sourceId: 'o', orgId: 'other', lastSuccessAt: ago(1000) });
    expect(orgFreshness(ORG, [a, other], now).stale).toBe(true);
    expect(orgFreshness('nobody', [a], now)).toEqual({ stale: false, lastSuccessAt: null });
    // Never synced at all: stale, with nothing to count from.
    expect(orgFreshness(ORG, [never], now)).toEqual({ stale: true, lastSuccessAt: null });
  });
});
