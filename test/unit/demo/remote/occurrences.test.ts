/** Occurrences kept across a moving clock equal the ones computed afresh at each instant. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ScheduleOccurrences } from '../../../../electron/demo/remote/occurrences';
import { makeDeadlineConfig, nextOccurrenceAfter, occurrencesUpTo } from '../../../../electron/demo/schedule';

// Starts a day before the clocks go back in London, so walks cross a daylight-saving change.
const START = Date.parse('2026-10-24T00:00:00.000Z');
const MINUTE = 60_000;

const SCHEDULES = [
  makeDeadlineConfig({ minute: 15, hour: '*' }),
  makeDeadlineConfig({ minute: 30, hour: 1, timezone: 'Europe/London' }),
  makeDeadlineConfig({ minute: 0, hour: 18, dayOfWeek: 5, timezone: 'America/Sao_Paulo' }),
  makeDeadlineConfig({ minute: 45, hour: 6, dayOfTheMonth: 1, timezone: 'Asia/Tokyo' }),
];

describe('ScheduleOccurrences', () => {
  it.each(SCHEDULES.map((config) => [config.cronExpression, config.timezone, config] as const))(
    '%s (%s): moving on matches computing afresh',
    (_cron, _zone, config) => {
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: -3 * 60, max: 40 * 24 * 60 }), { minLength: 1, maxLength: 12 }),
          (steps) => {
            const kept = new ScheduleOccurrences(config, 6);
            let now = START;
            for (const minutes of steps) {
              now += minutes * MINUTE + 17_000;
              expect(kept.at(now)).toEqual({
                past: occurrencesUpTo(config, now, 6),
                next: nextOccurrenceAfter(config, now),
              });
            }
          },
        ),
        { numRuns: 15 },
      );
    },
  );

  it('knows which instants are occurrences', () => {
    const config = SCHEDULES[1]!;
    const kept = new ScheduleOccurrences(config, 3);
    const { past, next } = kept.at(START + 40 * 24 * 60 * MINUTE);
    for (const at of [...past, next!]) expect(kept.isOccurrence(at)).toBe(true);
    expect(kept.isOccurrence(past[0]! - 5 * 24 * 60 * MINUTE)).toBe(true); // not held: asks croner
    expect(kept.isOccurrence(past[0]! + MINUTE)).toBe(false);
  });
});
