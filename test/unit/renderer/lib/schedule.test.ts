/** Schedules in words and deadlines in zones, at fixed instants in fixed zones (no real clock). */
import { describe, expect, it } from 'vitest';
import {
  NO_SCHEDULE,
  deadlineInZones,
  formatInZone,
  lateness,
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

describe('deadlineInZones', () => {
  // The deadlines themselves come from the engine's clock (test/unit/knowledge/deadlineClock.test.ts).
  it('says a deadline in the dataset zone and the user zone', () => {
    // 06:30 in New York (EST, UTC−5) is 11:30 UTC and 20:30 the same day in Tokyo.
    expect(deadlineInZones('2026-11-21T11:30:00.000Z', 'America/New_York', 'Asia/Tokyo', 'en-US')).toEqual({
      at: '2026-11-21T11:30:00.000Z',
      inDatasetZone: 'Sat, Nov 21, 2026, 06:30 EST',
      inUserZone: 'Sat, Nov 21, 2026, 20:30 GMT+9',
    });
  });

  it('names the zone in force on each side of a daylight-saving change', () => {
    // New York leaves daylight saving on 1 Nov 2026: 06:30 EDT is 10:30 UTC, then 06:30 EST 11:30 UTC.
    const shown = ['2026-10-31T10:30:00.000Z', '2026-11-01T11:30:00.000Z'].map(
      (at) => deadlineInZones(at, 'America/New_York', 'UTC', 'en-US').inDatasetZone,
    );
    expect(shown).toEqual(['Sat, Oct 31, 2026, 06:30 EDT', 'Sun, Nov 1, 2026, 06:30 EST']);
  });

  it('shows the seconds of a seven-field schedule, and only then', () => {
    expect(deadlineInZones('2026-11-21T06:00:15.000Z', 'UTC', 'UTC', 'en-US').inDatasetZone).toBe(
      'Sat, Nov 21, 2026, 06:00:15 UTC',
    );
    expect(deadlineInZones('2026-11-21T06:00:00.000Z', 'UTC', 'UTC', 'en-US').inDatasetZone).toBe(
      'Sat, Nov 21, 2026, 06:00 UTC',
    );
    // Other times (deliveries) stay to the minute, as before.
    expect(formatInZone(new Date('2026-11-21T06:00:15.000Z'), 'UTC', 'en-US')).toBe(
      'Sat, Nov 21, 2026, 06:00 UTC',
    );
  });

  it('shows a zone this system does not know as UTC rather than failing', () => {
    expect(deadlineInZones('2026-11-21T06:00:00.000Z', 'Mars/Olympus', 'Nowhere/Else', 'en-US')).toEqual({
      at: '2026-11-21T06:00:00.000Z',
      inDatasetZone: 'Sat, Nov 21, 2026, 06:00 UTC',
      inUserZone: 'Sat, Nov 21, 2026, 06:00 UTC',
    });
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
