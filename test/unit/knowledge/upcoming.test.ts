/**
 * Upcoming's answer stays bounded whatever the schedules (docs/architecture.md#deadlines): at most 10,000 deadlines are
 * built, the soonest, with `total` counting them all; the handoff's at-risk choice is made before the
 * cap, so an at-risk deadline late in a busy window is not lost behind healthy ones.
 */
import { describe, expect, it } from 'vitest';
import { DeadlineClock } from '../../../electron/knowledge/deadlineClock';
import { type DatasetHistory, STATUS_CODE } from '../../../electron/knowledge/history';
import { upcomingDeadlines } from '../../../electron/knowledge/upcoming';
import { OrgHistory } from '../../../electron/knowledge/history';
import { MAX_UPCOMING_DEADLINES } from '../../../shared/upcoming';
import { scheduleConfig } from '../../helpers/history';

const NOW = Date.parse('2026-11-26T12:00:30Z');

function dataset(id: string, cron: string, latest: number = STATUS_CODE.HEALTHY): DatasetHistory {
  return {
    pk: 0,
    datasetId: id,
    name: id,
    supplierId: 'sup',
    supplierName: 'Supplier',
    dataProductName: 'Prices',
    status: 'HEALTHY',
    config: scheduleConfig(cron),
    deadlines: Float64Array.of(NOW - 3_600_000),
    delivered: Float64Array.of(NaN),
    statuses: Uint8Array.of(latest),
    latestSettledDeadline: NOW - 3_600_000,
  };
}

function org(datasets: DatasetHistory[]): OrgHistory {
  return OrgHistory.of('acme', '1', datasets);
}

describe('upcoming deadlines, bounded', () => {
  it('1,000 datasets due every minute for a day: 1,440,000 counted, the soonest 10,000 listed', () => {
    const datasets = Array.from({ length: 1_000 }, (_, i) =>
      dataset(`ds-${String(i).padStart(4, '0')}`, '* * * * *'),
    );
    const answer = upcomingDeadlines(org(datasets.reverse()), new DeadlineClock(), NOW, 24);
    expect(answer.total).toBe(1_440_000);
    expect(answer.truncated).toBe(true);
    expect(answer.deadlines).toHaveLength(MAX_UPCOMING_DEADLINES);
    // Soonest first, then by dataset id: ten whole minutes of all 1,000 datasets.
    expect(answer.deadlines[0]).toMatchObject({ datasetId: 'ds-0000', deadline: '2026-11-26T12:01:00.000Z' });
    expect(answer.deadlines[999]).toMatchObject({
      datasetId: 'ds-0999',
      deadline: '2026-11-26T12:01:00.000Z',
    });
    expect(answer.deadlines.at(-1)).toMatchObject({
      datasetId: 'ds-0999',
      deadline: '2026-11-26T12:10:00.000Z',
    });
  });

  it('several schedules: the soonest 10,000 over all of them, in order', () => {
    const datasets = [
      ...Array.from({ length: 300 }, (_, i) => dataset(`a-${String(i).padStart(3, '0')}`, '* * * * *')),
      ...Array.from({ length: 300 }, (_, i) => dataset(`b-${String(i).padStart(3, '0')}`, '*/2 * * * *')),
    ];
    const answer = upcomingDeadlines(org(datasets), new DeadlineClock(), NOW, 6);
    expect(answer.total).toBe(360 * 300 + 180 * 300);
    const keys = answer.deadlines.map((d) => `${d.deadline}|${d.datasetId}`);
    expect(keys).toEqual([...keys].sort());
    // Every minute: 300 every minute + 300 every other minute; 10,000 reach into the 23rd minute.
    expect(answer.deadlines.at(-1)!.deadline).toBe('2026-11-26T12:23:00.000Z');
  });

  it('at risk only, chosen before the cap: a late at-risk deadline behind 10,000 healthy ones is kept', () => {
    const busy = Array.from({ length: 100 }, (_, i) => dataset(`ok-${i}`, '* * * * *'));
    const risky = dataset('risky', '0 19 * * *', STATUS_CODE.MISSING);
    const all = upcomingDeadlines(org([...busy, risky]), new DeadlineClock(), NOW, 8);
    expect(all.deadlines.some((d) => d.datasetId === 'risky')).toBe(false);
    const atRisk = upcomingDeadlines(org([...busy, risky]), new DeadlineClock(), NOW, 8, {
      onlyAtRisk: true,
    });
    expect(atRisk.deadlines.map((d) => [d.datasetId, d.deadline])).toEqual([
      ['risky', '2026-11-26T19:00:00.000Z'],
    ]);
    expect(atRisk.total).toBe(1);
  });
});
