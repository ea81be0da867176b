import { describe, expect, it } from 'vitest';
import { cronerPattern } from '../../../shared/schedule';
import {
  isOccurrence,
  makeDeadlineConfig,
  nextOccurrenceAfter,
  occurrencesAt,
  occurrencesUpTo,
} from '../../../electron/demo/schedule';

const iso = (ms: number) => new Date(ms).toISOString();

/** Local wall-clock "HH:MM" of an instant in a zone. */
function localTime(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(ms);
}

describe('deadline configs', () => {
  it('carry all eight string fields, cronExpression being the six schedule fields', () => {
    expect(makeDeadlineConfig({ minute: 30, hour: 6, timezone: 'Europe/London' })).toEqual({
      minute: '30',
      hour: '6',
      dayOfTheMonth: '*',
      month: '*',
      dayOfWeek: '*',
      year: '*',
      timezone: 'Europe/London',
      cronExpression: '30 6 * * * *',
    });
    expect(makeDeadlineConfig({}).timezone).toBe('');
    expect(cronerPattern(makeDeadlineConfig({ minute: 5, hour: '*', dayOfWeek: 1 }))).toBe('0 5 * * * 1 *');
  });

  it('fall back to cronExpression when the fields are unknown, and reject what does not parse', () => {
    const blank = {
      minute: '',
      hour: '',
      dayOfTheMonth: '',
      month: '',
      dayOfWeek: '',
      year: '',
      timezone: '',
    };
    expect(cronerPattern({ ...blank, cronExpression: '15 7 * * *' })).toBe('0 15 7 * * * *');
    expect(cronerPattern({ ...blank, cronExpression: '15 7 1 * * 2027' })).toBe('0 15 7 1 * * 2027');
    expect(cronerPattern({ ...blank, cronExpression: '' })).toBeNull();
    expect(occurrencesUpTo({ ...blank, cronExpression: 'not a cron at all' }, Date.now(), 3)).toEqual([]);
    const badZone = makeDeadlineConfig({ minute: 0, hour: 6, timezone: 'Mars/Olympus_Mons' });
    expect(occurrencesUpTo(badZone, Date.UTC(2026, 0, 1), 3)).toEqual([]);
    expect(nextOccurrenceAfter(badZone, Date.UTC(2026, 0, 1))).toBeNull();
  });
});

describe('occurrences', () => {
  it('keep a daily 06:30 Europe/London deadline at 06:30 local across the March change', () => {
    const config = makeDeadlineConfig({ minute: 30, hour: 6, timezone: 'Europe/London' });
    const runs = occurrencesUpTo(config, Date.parse('2026-04-02T12:00:00Z'), 10);
    expect(runs).toHaveLength(10);
    expect(runs.map((ms) => localTime(ms, 'Europe/London'))).toEqual(Array(10).fill('06:30'));
    // GMT until Sunday 29 March, BST after: the UTC instant moves an hour earlier.
    expect(runs.map(iso)).toContain('2026-03-28T06:30:00.000Z');
    expect(runs.map(iso)).toContain('2026-03-29T05:30:00.000Z');
    expect(runs).toEqual([...runs].sort((a, b) => a - b));
  });

  it('include an occurrence exactly at now, and the next one is strictly after now', () => {
    const config = makeDeadlineConfig({ minute: 0, hour: 18, timezone: 'America/New_York' });
    const at = Date.parse('2026-07-01T22:00:00.000Z'); // 18:00 EDT
    expect(occurrencesUpTo(config, at, 2).map(iso)).toEqual([
      '2026-06-30T22:00:00.000Z',
      '2026-07-01T22:00:00.000Z',
    ]);
    expect(occurrencesUpTo(config, at - 1, 1).map(iso)).toEqual(['2026-06-30T22:00:00.000Z']);
    expect(iso(nextOccurrenceAfter(config, at)!)).toBe('2026-07-02T22:00:00.000Z');
    expect(isOccurrence(config, at)).toBe(true);
    expect(isOccurrence(config, at + 60_000)).toBe(false);
  });

  it('evaluate UTC for an empty zone, weekly and monthly schedules, and hourly ones through DST', () => {
    const utc = makeDeadlineConfig({ minute: 45, hour: 23, timezone: '' });
    expect(iso(nextOccurrenceAfter(utc, Date.parse('2026-01-01T00:00:00Z'))!)).toBe(
      '2026-01-01T23:45:00.000Z',
    );

    const weekly = makeDeadlineConfig({ minute: 0, hour: 6, dayOfWeek: 5, timezone: 'Asia/Tokyo' });
    const fridays = occurrencesUpTo(weekly, Date.parse('2026-11-21T00:00:00Z'), 4);
    expect(fridays.map(iso)).toEqual([
      '2026-10-29T21:00:00.000Z',
      '2026-11-05T21:00:00.000Z',
      '2026-11-12T21:00:00.000Z',
      '2026-11-19T21:00:00.000Z',
    ]);

    const monthly = makeDeadlineConfig({
      minute: 0,
      hour: 9,
      dayOfTheMonth: 1,
      timezone: 'Australia/Sydney',
    });
    const firsts = occurrencesUpTo(monthly, Date.parse('2026-05-15T00:00:00Z'), 3);
    // AEDT (+11) until Sunday 5 April 2026, AEST (+10) after.
    expect(firsts.map(iso)).toEqual([
      '2026-02-28T22:00:00.000Z',
      '2026-03-31T22:00:00.000Z',
      '2026-04-30T23:00:00.000Z',
    ]);

    // Hourly in Berlin on the October change day: the repeated hour runs twice, 25 runs that day.
    const hourly = makeDeadlineConfig({ minute: 15, hour: '*', timezone: 'Europe/Berlin' });
    const day = occurrencesUpTo(hourly, Date.parse('2026-10-25T22:59:00Z'), 40).filter(
      (ms) => ms >= Date.parse('2026-10-24T22:00:00Z'),
    );
    expect(day).toHaveLength(25);
  });

  it('respect a numeric year: none after it, none before it', () => {
    const only2025 = makeDeadlineConfig({ minute: 0, hour: 12, year: 2025 });
    const now = Date.parse('2026-03-01T00:00:00Z');
    expect(occurrencesUpTo(only2025, now, 2).map(iso)).toEqual([
      '2025-12-30T12:00:00.000Z',
      '2025-12-31T12:00:00.000Z',
    ]);
    expect(nextOccurrenceAfter(only2025, now)).toBeNull();
    const from2027 = makeDeadlineConfig({ minute: 0, hour: 12, year: 2027 });
    expect(occurrencesUpTo(from2027, now, 5)).toEqual([]);
    expect(iso(nextOccurrenceAfter(from2027, now)!)).toBe('2027-01-01T12:00:00.000Z');
  });

  it('are memoized per schedule, instant and count', () => {
    const config = makeDeadlineConfig({ minute: 30, hour: 6, timezone: 'Europe/London' });
    const now = Date.parse('2026-04-02T12:00:00Z');
    const first = occurrencesAt(config, now, 5);
    expect(occurrencesAt({ ...config }, now, 5)).toBe(first);
    expect(first).toEqual({ past: occurrencesUpTo(config, now, 5), next: nextOccurrenceAfter(config, now) });
  });
});
