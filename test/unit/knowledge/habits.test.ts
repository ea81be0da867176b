/**
 * Delivery habits and the at-risk rule (shared/upcoming.ts AT_RISK_RULE) on constructed histories: what
 * a person checking the rule by hand against the dataset's last 20 settled deliveries would conclude.
 */
import { describe, expect, it } from 'vitest';
import { habitsOf, median } from '../../../electron/knowledge/habits';
import { STATUS_CODE, statusCode } from '../../../electron/knowledge/history';
import { AT_RISK_RULE } from '../../../shared/upcoming';

const DAY = 86_400_000;
const MIN = 60_000;
const NEWEST = Date.parse('2026-11-26T06:30:00Z');

/** Deliveries newest first: [status, minutes after the deadline (null: not delivered)]. */
function history(entries: [string | null, number | null][]) {
  return {
    deadlines: Float64Array.from(entries, (_, i) => NEWEST - i * DAY),
    delivered: Float64Array.from(entries, ([, offset], i) =>
      offset === null ? NaN : NEWEST - i * DAY + offset * MIN,
    ),
    statuses: Uint8Array.from(entries, ([status]) => statusCode(status)),
  };
}

const times = <T>(count: number, entry: T): T[] => Array.from({ length: count }, () => entry);

describe('delivery habits', () => {
  it('a steady dataset: all on time, typically 10 minutes early, not at risk', () => {
    const habits = habitsOf(history(times(30, ['HEALTHY', -10])));
    expect(habits).toEqual({
      settled: 20,
      onTime: 20,
      onTimeRate: 1,
      typicalDeliveryMs: -10 * MIN,
      latestStatus: 'HEALTHY',
      atRisk: false,
      riskReason: null,
    });
  });

  it('at risk below 80% on time over the last 20 settled: 15 of 20 is 75%', () => {
    const entries: [string, number][] = [
      ...times(15, ['HEALTHY', -5] as [string, number]),
      ...times(5, ['DELIVERED_LATE', 30] as [string, number]),
    ];
    // Older deliveries beyond the 20 do not count, however good.
    const habits = habitsOf(history([...entries, ...times(20, ['HEALTHY', -5] as [string, number])]));
    expect(habits).toMatchObject({ settled: 20, onTime: 15, onTimeRate: 0.75, atRisk: true });
    expect(habits.riskReason).toBe('15 of its last 20 deliveries were on time (75%)');
    // Median of fifteen −5s and five +30s.
    expect(habits.typicalDeliveryMs).toBe(-5 * MIN);
  });

  it('exactly 80% on time is not at risk (the rule says fewer than)', () => {
    const entries: [string, number][] = [
      ...times(16, ['HEALTHY', 0] as [string, number]),
      ...times(4, ['DELIVERED_LATE', 60] as [string, number]),
    ];
    expect(habitsOf(history(entries))).toMatchObject({ onTimeRate: 0.8, atRisk: false, riskReason: null });
  });

  it('at risk when the latest settled delivery was MISSING or FAILED, whatever the rate', () => {
    expect(
      habitsOf(history([['MISSING', null], ...times(19, ['HEALTHY', -1] as [string, number])])),
    ).toMatchObject({
      latestStatus: 'MISSING',
      atRisk: true,
      riskReason: 'its latest delivery was MISSING',
    });
    expect(
      habitsOf(history([['FAILED', 3], ...times(19, ['HEALTHY', -1] as [string, number])])),
    ).toMatchObject({
      latestStatus: 'FAILED',
      atRisk: true,
      riskReason: 'its latest delivery was FAILED',
    });
  });

  it('deliveries in progress or of unknown status are not settled: they neither count nor decide the latest', () => {
    const habits = habitsOf(
      history([
        ['IN_PROGRESS', null],
        [null, null],
        ['bogus', null],
        ['HEALTHY', -2],
        ['HEALTHY', -4],
        ['DELIVERED_LATE', 6],
      ]),
    );
    expect(habits).toMatchObject({
      settled: 3,
      onTime: 2,
      latestStatus: 'HEALTHY',
      typicalDeliveryMs: -2 * MIN,
    });
    expect(habits.onTimeRate).toBeCloseTo(2 / 3);
    expect(habits.atRisk).toBe(true);
  });

  it('too little history has no rate and is not at risk by rate; none at all says nothing', () => {
    expect(
      habitsOf(
        history([
          ['DELIVERED_LATE', 20],
          ['DELIVERED_LATE', 40],
        ]),
      ),
    ).toMatchObject({
      settled: 2,
      onTimeRate: null,
      typicalDeliveryMs: 30 * MIN,
      atRisk: false,
    });
    expect(habitsOf(history([]))).toEqual({
      settled: 0,
      onTime: 0,
      onTimeRate: null,
      typicalDeliveryMs: null,
      latestStatus: null,
      atRisk: false,
      riskReason: null,
    });
  });

  it('typical delivery ignores MISSING and FAILED deliveries and unknown times', () => {
    const habits = habitsOf(
      history([
        ['HEALTHY', -10],
        ['FAILED', 50],
        ['MISSING', null],
        ['DELIVERED_LATE', 20],
        ['HEALTHY', null],
      ]),
    );
    expect(habits.typicalDeliveryMs).toBe(5 * MIN);
  });

  it('the rule in words names its numbers', () => {
    expect(AT_RISK_RULE).toContain('80%');
    expect(AT_RISK_RULE).toContain('last 20 settled deliveries');
    expect(AT_RISK_RULE).toContain('MISSING or FAILED');
  });

  it('median: odd, even, none', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
    expect(statusCode('DELIVERED_LATE')).toBe(STATUS_CODE.DELIVERED_LATE);
  });
});
