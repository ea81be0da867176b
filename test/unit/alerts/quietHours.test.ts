import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isPaused, isQuiet, localMinutes } from '../../../electron/alerts/quietHours';

const span = (start: string, end: string) => ({ enabled: true, start, end });

describe('quiet hours', () => {
  it('spans midnight when the end is earlier than the start', () => {
    const quiet = span('22:00', '07:00');
    expect(isQuiet(quiet, new Date('2026-11-21T21:59:00Z'), 'UTC')).toBe(false);
    expect(isQuiet(quiet, new Date('2026-11-21T22:00:00Z'), 'UTC')).toBe(true);
    expect(isQuiet(quiet, new Date('2026-11-22T03:00:00Z'), 'UTC')).toBe(true);
    expect(isQuiet(quiet, new Date('2026-11-22T06:59:00Z'), 'UTC')).toBe(true);
    expect(isQuiet(quiet, new Date('2026-11-22T07:00:00Z'), 'UTC')).toBe(false);
  });

  it('reads the wall clock of the given zone, across a daylight-saving change', () => {
    const quiet = span('01:00', '02:00');
    // London: 01:30 local is 01:30Z in winter and 00:30Z in summer.
    expect(isQuiet(quiet, new Date('2026-01-10T01:30:00Z'), 'Europe/London')).toBe(true);
    expect(isQuiet(quiet, new Date('2026-07-10T00:30:00Z'), 'Europe/London')).toBe(true);
    expect(isQuiet(quiet, new Date('2026-07-10T01:30:00Z'), 'Europe/London')).toBe(false);
    expect(localMinutes(new Date('2026-11-21T04:41:00Z'), 'Asia/Kolkata')).toBe(10 * 60 + 11);
  });

  it('is off when disabled, and empty when start equals end', () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), (now) => {
        expect(isQuiet({ enabled: false, start: '00:00', end: '23:59' }, now, 'UTC')).toBe(false);
        expect(isQuiet(span('08:00', '08:00'), now, 'UTC')).toBe(false);
      }),
    );
  });

  it('a span and its complement cover every minute exactly once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1439 }),
        fc.integer({ min: 0, max: 1439 }),
        fc.integer({ min: 0, max: 1439 }),
        (a, b, minute) => {
          fc.pre(a !== b);
          const clock = (m: number) =>
            `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
          const now = new Date(Date.UTC(2026, 10, 21, 0, minute));
          expect(isQuiet(span(clock(a), clock(b)), now, 'UTC')).not.toBe(
            isQuiet(span(clock(b), clock(a)), now, 'UTC'),
          );
        },
      ),
    );
  });
});

describe('pause', () => {
  it('holds until its time, or until resumed', () => {
    const now = new Date('2026-11-21T12:00:00Z');
    expect(isPaused(null, now)).toBe(false);
    expect(isPaused('forever', now)).toBe(true);
    expect(isPaused('2026-11-21T12:00:01.000Z', now)).toBe(true);
    expect(isPaused('2026-11-21T12:00:00.000Z', now)).toBe(false);
  });
});
