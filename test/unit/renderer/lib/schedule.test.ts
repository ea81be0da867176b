/** Schedules in words and their next deadlines, at fixed instants in fixed zones (no real clock). */
import { describe, expect, it } from 'vitest';
import {
  NO_SCHEDULE,
  lateness,
  nextDeadlines,
  parseSchedule,
  scheduleInWords,
  shownZone,
} from '../../../../renderer/src/lib/schedule';
import type { DeadlineConfig } from '../../../../shared/schemas';

function config(overrides: Partial<DeadlineConfig>): DeadlineConfig {
  return {
    minute: '',
    hour: '',
    dayOfTheMonth: '',
    month: '',
    dayOfWeek: '',
    year: '',
    timezone: '',
    cronExpression: '',
    ...overrides,
  };
}

const NEW_YORK_DAILY = config({ cronExpression: '30 6 * * * *', timezone: 'America/New_York' });

describe('scheduleInWords', () => {
  it('reads the six-field expression as minute-first with a year (not seconds-first)', () => {
    const words = scheduleInWords(NEW_YORK_DAILY);
    expect(words).toEqual({
      ok: true,
      text: 'At 06:30',
      expression: '30 6 * * * *',
      timeZone: 'America/New_York',
    });
  });

  it('takes a five-field expression with any year, and says weekdays and restricted years', () => {
    expect(scheduleInWords(config({ cronExpression: '15 9 * * 1' }))).toMatchObject({
      ok: true,
      text: 'At 09:15, only on Monday',
      timeZone: 'UTC',
    });
    expect(scheduleInWords(config({ cronExpression: '0 7 1 * * 2027' }))).toMatchObject({
      ok: true,
      text: 'At 07:00, on day 1 of the month, only in 2027',
    });
  });

  it('builds the expression from the fields when cronExpression is empty', () => {
    const fromFields = config({ minute: '0', hour: '18', dayOfTheMonth: '*', month: '*', dayOfWeek: '5' });
    expect(scheduleInWords(fromFields)).toMatchObject({
      ok: true,
      text: 'At 18:00, only on Friday',
      expression: '0 18 * * 5 *',
    });
  });

  it('says no schedule is known when neither the expression nor the fields are there', () => {
    expect(scheduleInWords(config({}))).toEqual({ ok: false, reason: NO_SCHEDULE });
    expect(scheduleInWords(config({ minute: '0', hour: '6' }))).toEqual({ ok: false, reason: NO_SCHEDULE });
  });

  it('explains an invalid expression instead of throwing', () => {
    const wrongCount = parseSchedule(config({ cronExpression: 'every day' }));
    expect(wrongCount).toMatchObject({ ok: false });
    expect(!wrongCount.ok && wrongCount.reason).toMatch(/"every day" has 2 fields/);
    const outOfRange = scheduleInWords(config({ cronExpression: '99 6 * * *' }));
    expect(!outOfRange.ok && outOfRange.reason).toMatch(/"99 6 \* \* \* \*" is not a valid cron expression/);
  });
});

describe('nextDeadlines', () => {
  const now = new Date('2026-11-21T04:41:00.000Z');

  it('gives the next five deadlines in the dataset zone and the user zone', () => {
    const next = nextDeadlines(NEW_YORK_DAILY, now, 'Asia/Tokyo', 5, 'en-US');
    expect(next.ok).toBe(true);
    if (!next.ok) return;
    // 06:30 in New York (EST, UTC−5) is 11:30 UTC and 20:30 the same day in Tokyo.
    expect(next.deadlines.map((d) => d.at)).toEqual([
      '2026-11-21T11:30:00.000Z',
      '2026-11-22T11:30:00.000Z',
      '2026-11-23T11:30:00.000Z',
      '2026-11-24T11:30:00.000Z',
      '2026-11-25T11:30:00.000Z',
    ]);
    expect(next.deadlines[0]).toEqual({
      at: '2026-11-21T11:30:00.000Z',
      inDatasetZone: 'Sat, Nov 21, 2026, 06:30 EST',
      inUserZone: 'Sat, Nov 21, 2026, 20:30 GMT+9',
    });
  });

  it('keeps the local time across a daylight-saving change', () => {
    // New York leaves daylight saving on 1 Nov 2026: 06:30 EDT is 10:30 UTC, then 06:30 EST 11:30 UTC.
    const next = nextDeadlines(NEW_YORK_DAILY, new Date('2026-10-30T12:00:00.000Z'), 'UTC', 3, 'en-US');
    expect(next.ok && next.deadlines.map((d) => [d.at, d.inDatasetZone])).toEqual([
      ['2026-10-31T10:30:00.000Z', 'Sat, Oct 31, 2026, 06:30 EDT'],
      ['2026-11-01T11:30:00.000Z', 'Sun, Nov 1, 2026, 06:30 EST'],
      ['2026-11-02T11:30:00.000Z', 'Mon, Nov 2, 2026, 06:30 EST'],
    ]);
  });

  it('reads a schedule without a zone in UTC, and excludes a deadline exactly at now', () => {
    const hourly = config({ cronExpression: '0 * * * *' });
    const next = nextDeadlines(hourly, new Date('2026-11-21T05:00:00.000Z'), 'America/New_York', 2, 'en-US');
    expect(next.ok && next.deadlines).toEqual([
      {
        at: '2026-11-21T06:00:00.000Z',
        inDatasetZone: 'Sat, Nov 21, 2026, 06:00 UTC',
        inUserZone: 'Sat, Nov 21, 2026, 01:00 EST',
      },
      {
        at: '2026-11-21T07:00:00.000Z',
        inDatasetZone: 'Sat, Nov 21, 2026, 07:00 UTC',
        inUserZone: 'Sat, Nov 21, 2026, 02:00 EST',
      },
    ]);
  });

  it('explains an unknown zone, an ended schedule and a missing schedule', () => {
    const badZone = nextDeadlines({ ...NEW_YORK_DAILY, timezone: 'Mars/Olympus' }, now, 'UTC');
    expect(badZone).toEqual({
      ok: false,
      reason: 'Unknown time zone "Mars/Olympus": the next deadlines cannot be worked out.',
    });
    const ended = nextDeadlines(config({ cronExpression: '0 0 1 1 * 2020' }), now, 'UTC');
    expect(ended).toEqual({ ok: false, reason: 'No deadline after now: the schedule has ended.' });
    expect(nextDeadlines(config({}), now, 'UTC')).toEqual({ ok: false, reason: NO_SCHEDULE });
    expect(nextDeadlines(config({ cronExpression: '0 25 * * *' }), now, 'UTC').ok).toBe(false);
  });
});

describe('lateness', () => {
  it('says on time, how late, or not delivered', () => {
    expect(lateness('2026-11-20T11:30:00.000Z', '2026-11-20T11:29:00.000Z')).toBe('on time');
    expect(lateness('2026-11-20T11:30:00.000Z', '2026-11-20T11:30:00.000Z')).toBe('on time');
    expect(lateness('2026-11-20T11:30:00.000Z', '2026-11-20T13:35:00.000Z')).toBe('2 h 5 min late');
    expect(lateness('2026-11-20T11:30:00.000Z', null)).toBe('not delivered');
    expect(lateness(null, '2026-11-20T13:35:00.000Z')).toBe('—');
  });
});

describe('shownZone', () => {
  it.each([
    ['America/New_York', 'America/New_York'],
    ['', 'UTC'],
    ['Mars/Olympus_Mons', 'UTC'],
  ])('the zone "%s" is shown as %s', (timezone, shown) => {
    expect(shownZone(config({ timezone }))).toBe(shown);
  });
  it('is UTC while there is no config yet', () => {
    expect(shownZone(undefined)).toBe('UTC');
  });
});
