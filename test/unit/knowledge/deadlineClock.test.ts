/**
 * The deadline clock (docs/architecture.md#deadlines): each schedule's previous and next deadlines from cron of 5, 6 or 7
 * fields in its IANA zone, right across daylight-saving changes, refreshed as deadlines pass, and an
 * unreadable schedule kept with its reason rather than a crash. The table states what a person reads off
 * a calendar; the properties hold the clock, as it moves on, to croner asked afresh at every instant.
 */
import { Cron } from 'croner';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeadlineClock } from '../../../electron/knowledge/deadlineClock';
import { scheduleConfig } from '../../helpers/history';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe('the deadline clock', () => {
  it.each([
    // [case, cron, zone, now, previous, next]
    [
      '5 fields, empty zone = UTC',
      '30 6 * * *',
      '',
      '2026-11-26T12:00:00Z',
      '2026-11-26T06:30:00.000Z',
      '2026-11-27T06:30:00.000Z',
    ],
    [
      '6 fields with the year',
      '0 9 1 1 * 2027',
      '',
      '2026-11-26T12:00:00Z',
      null,
      '2027-01-01T09:00:00.000Z',
    ],
    [
      'a year that is over',
      '0 9 1 1 * 2025',
      'UTC',
      '2026-11-26T12:00:00Z',
      '2025-01-01T09:00:00.000Z',
      null,
    ],
    [
      '7 fields: seconds first',
      '30 0 9 * * * *',
      'America/New_York',
      '2026-11-26T12:00:00Z',
      '2026-11-25T14:00:30.000Z',
      '2026-11-26T14:00:30.000Z',
    ],
    [
      '7 fields with the year',
      '0 15 10 * * 1 2027',
      'Europe/Berlin',
      '2026-11-26T12:00:00Z',
      null,
      '2027-01-04T09:15:00.000Z',
    ],
    [
      'London in winter (GMT)',
      '30 6 * * *',
      'Europe/London',
      '2026-03-28T12:00:00Z',
      '2026-03-28T06:30:00.000Z',
      '2026-03-29T05:30:00.000Z',
    ],
    [
      'London after the spring change (BST)',
      '30 6 * * *',
      'Europe/London',
      '2026-03-29T12:00:00Z',
      '2026-03-29T05:30:00.000Z',
      '2026-03-30T05:30:00.000Z',
    ],
    [
      'a time skipped in spring runs at the end of the gap',
      '30 1 * * *',
      'Europe/London',
      '2026-03-28T12:00:00Z',
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z',
    ],
    [
      'a time repeated in autumn runs once, the first time',
      '30 1 * * *',
      'Europe/London',
      '2026-10-24T12:00:00Z',
      '2026-10-24T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z',
    ],
    [
      'the day after the autumn change',
      '30 1 * * *',
      'Europe/London',
      '2026-10-25T12:00:00Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ],
    [
      'New York skips 02:30 on 8 March',
      '30 2 * * *',
      'America/New_York',
      '2026-03-07T12:00:00Z',
      '2026-03-07T07:30:00.000Z',
      '2026-03-08T07:00:00.000Z',
    ],
    [
      'a deadline exactly now is the previous one',
      '0 12 * * *',
      '',
      '2026-11-26T12:00:00Z',
      '2026-11-26T12:00:00.000Z',
      '2026-11-27T12:00:00.000Z',
    ],
    [
      'weekdays only (Friday → Monday)',
      '0 8 * * 1-5',
      'Asia/Tokyo',
      '2026-11-27T00:00:00Z',
      '2026-11-26T23:00:00.000Z',
      '2026-11-29T23:00:00.000Z',
    ],
  ])('%s', (_case, cron, zone, now, previous, next) => {
    const clock = new DeadlineClock();
    const found = clock.at(scheduleConfig(cron, zone), at(now));
    expect(found.problem).toBeNull();
    expect(iso(found.previous)).toBe(previous);
    expect(iso(found.next)).toBe(next);
    expect(found.timeZone).toBe(zone === '' ? 'UTC' : zone);
  });

  it.each([
    ['no schedule', '', '', /no schedule/],
    ['4 fields', '0 4 * *', '', /no schedule/],
    ['8 fields', '0 0 4 * * * * *', '', /no schedule/],
    ['an hour out of range', '0 25 * * *', '', /not a valid schedule.*hour/i],
    ['words', 'not a cron at all', '', /not a valid schedule/],
    ['an unknown zone', '0 6 * * *', 'Mars/Olympus_Mons', /unknown time zone "Mars\/Olympus_Mons"/],
  ])('keeps an unreadable schedule with its reason: %s', (_case, cron, zone, reason) => {
    const clock = new DeadlineClock();
    const config = scheduleConfig(cron, zone);
    const found = clock.at(config, at('2026-11-26T12:00:00Z'));
    expect(found.problem).toMatch(reason);
    expect(found.previous).toBeNull();
    expect(found.next).toBeNull();
    expect(clock.ahead(config, at('2026-11-26T12:00:00Z'), 86_400_000, 100)).toEqual([]);
  });

  it('moves on as deadlines pass, computing each schedule once per deadline, not per look', () => {
    const clock = new DeadlineClock();
    const config = scheduleConfig('0 * * * *', 'Europe/London');
    const first = clock.at(config, at('2026-11-26T10:30:00Z'));
    expect(iso(first.next)).toBe('2026-11-26T11:00:00.000Z');
    // The same object until the deadline passes: nothing recomputed between.
    expect(clock.at(config, at('2026-11-26T10:59:59Z'))).toBe(first);
    expect(iso(first.next)).toBe('2026-11-26T11:00:00.000Z');
    const later = clock.at(config, at('2026-11-26T13:20:00Z'));
    expect([iso(later.previous), iso(later.next)]).toEqual([
      '2026-11-26T13:00:00.000Z',
      '2026-11-26T14:00:00.000Z',
    ]);
    expect(iso(clock.soonest())).toBe('2026-11-26T14:00:00.000Z');
    // Long asleep (a laptop lid shut for a fortnight) and set back: still right.
    const woken = clock.at(config, at('2026-12-10T08:10:00Z'));
    expect([iso(woken.previous), iso(woken.next)]).toEqual([
      '2026-12-10T08:00:00.000Z',
      '2026-12-10T09:00:00.000Z',
    ]);
    const back = clock.at(config, at('2026-11-01T00:30:00Z'));
    expect([iso(back.previous), iso(back.next)]).toEqual([
      '2026-11-01T00:00:00.000Z',
      '2026-11-01T01:00:00.000Z',
    ]);
  });

  it('lists the deadlines ahead within a span, and stops at a cap', () => {
    const clock = new DeadlineClock();
    const config = scheduleConfig('*/15 * * * *', '');
    const now = at('2026-11-26T12:05:00Z');
    expect(clock.ahead(config, now, 3_600_000, 100).map(iso)).toEqual([
      '2026-11-26T12:15:00.000Z',
      '2026-11-26T12:30:00.000Z',
      '2026-11-26T12:45:00.000Z',
      '2026-11-26T13:00:00.000Z',
    ]);
    expect(clock.ahead(config, now, 86_400_000, 10)).toHaveLength(10);
    expect(clock.ahead(config, now, 86_400_000, 1_000)).toHaveLength(96);
  });
});

const ZONES = [
  '',
  'UTC',
  'Europe/London',
  'America/New_York',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'America/Sao_Paulo',
  'Pacific/Chatham',
];

/** Random schedules: 5, 6 or 7 fields, lists, ranges and steps; the days and months wide enough to recur. */
const schedule = fc
  .record({
    second: fc.constantFrom('0', '0', '30'),
    minute: fc.oneof(fc.integer({ min: 0, max: 59 }).map(String), fc.constantFrom('*/15', '0,30', '5-10')),
    hour: fc.oneof(fc.integer({ min: 0, max: 23 }).map(String), fc.constantFrom('*', '1-3', '*/6', '0,1,2')),
    day: fc.constantFrom('*', '*', '1', '1,15', '28-31'),
    month: fc.constantFrom('*', '*', '3', '3,10', '*/2'),
    weekday: fc.constantFrom('*', '*', '0', '1-5', '6'),
    year: fc.constantFrom('*', '*', '2026', '2026-2027'),
    fields: fc.constantFrom(5, 6, 7),
  })
  .map((s) => {
    const six = [s.minute, s.hour, s.day, s.month, s.weekday, s.year];
    const cron = s.fields === 5 ? six.slice(0, 5) : s.fields === 6 ? six : [s.second, ...six];
    return {
      cron: cron.join(' '),
      pattern: [s.fields === 7 ? s.second : '0', ...(s.fields === 5 ? [...six.slice(0, 5), '*'] : six)].join(
        ' ',
      ),
    };
  });

/** Croner asked afresh: the truth the clock is held to. */
function truth(pattern: string, zone: string, now: number): { previous: number | null; next: number | null } {
  const cron = new Cron(pattern, {
    mode: '7-part',
    paused: true,
    ...(zone === '' ? { utcOffset: 0 } : { timezone: zone }),
  });
  const next = cron.nextRun(new Date(now))?.getTime() ?? null;
  const previous = cron.previousRuns(1, new Date(Math.floor(now / 1000) * 1000 + 1000))[0]?.getTime() ?? null;
  return { previous: previous !== null && previous <= now ? previous : null, next };
}

describe('the deadline clock against croner', () => {
  it('agrees at every instant as time moves on, through daylight-saving changes', () => {
    fc.assert(
      fc.property(
        schedule,
        fc.constantFrom(...ZONES),
        // Around the 2026 changes of both hemispheres.
        fc.constantFrom(
          '2026-03-07T00:00:00Z',
          '2026-03-27T00:00:00Z',
          '2026-04-03T00:00:00Z',
          '2026-10-02T00:00:00Z',
          '2026-10-23T00:00:00Z',
          '2026-12-30T00:00:00Z',
        ),
        fc.array(fc.integer({ min: 1, max: 40 * 3_600_000 }), { minLength: 1, maxLength: 12 }),
        ({ cron, pattern }, zone, start, steps) => {
          const clock = new DeadlineClock();
          const config = scheduleConfig(cron, zone);
          let now = at(start);
          for (const step of [0, ...steps]) {
            now += step;
            const found = clock.at(config, now);
            expect(found.problem).toBeNull();
            const expected = truth(pattern, zone, now);
            expect({ previous: iso(found.previous), next: iso(found.next) }).toEqual({
              previous: iso(expected.previous),
              next: iso(expected.next),
            });
          }
        },
      ),
      { numRuns: 150, seed: 9 },
    );
  });

  it('lists the same deadlines ahead as croner', () => {
    fc.assert(
      fc.property(
        schedule,
        fc.constantFrom(...ZONES),
        fc.integer({ min: at('2026-01-01T00:00:00Z'), max: at('2026-12-31T00:00:00Z') }),
        fc.integer({ min: 1, max: 48 }),
        ({ cron, pattern }, zone, now, hours) => {
          const clock = new DeadlineClock();
          const config = scheduleConfig(cron, zone);
          const span = hours * 3_600_000;
          const cronerRuns = new Cron(pattern, {
            mode: '7-part',
            paused: true,
            ...(zone === '' ? { utcOffset: 0 } : { timezone: zone }),
          })
            .nextRuns(500, new Date(now))
            .map((d) => d.getTime())
            .filter((ms) => ms <= now + span);
          expect(clock.ahead(config, now, span, 500).map(iso)).toEqual(cronerRuns.map(iso));
        },
      ),
      { numRuns: 100, seed: 11 },
    );
  });
});

describe('a schedule denser than the clock keeps ahead', () => {
  it('stays right past the cap of deadlines held ahead (every 30 s, asked 8 days ahead twice)', () => {
    const clock = new DeadlineClock();
    const config = scheduleConfig('*/30 * * * * * *', '');
    const start = at('2026-11-26T12:00:10Z');
    // 8 days every 30 s is 23,040 deadlines: more than the clock holds (MAX_AHEAD), asked twice at once.
    expect(clock.ahead(config, start, 8 * 86_400_000, 5)).toHaveLength(5);
    expect(clock.ahead(config, start, 8 * 86_400_000, 5)).toHaveLength(5);
    for (const later of [1, 3, 7].map((days) => start + days * 86_400_000 + 5_000)) {
      const found = clock.at(config, later);
      const expected = truth('*/30 * * * * * *', '', later);
      expect([iso(found.previous), iso(found.next)]).toEqual([iso(expected.previous), iso(expected.next)]);
      expect(clock.ahead(config, later, 3_600_000, 1_000)).toHaveLength(120);
    }
  });
});
