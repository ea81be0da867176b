/**
 * normalizeDateTime's fast path (canonical timestamps, checked field by field without allocating) must
 * answer exactly as a round trip through Date would: the text itself when it is a real instant, null
 * when a field is out of range (2026-02-30, 24:00, a 29 February outside leap years).
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { normalizeDateTime } from '../../../electron/store/normalize';

const pad = (value: number, width: number) => String(value).padStart(width, '0');

const canonical = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    hour: fc.integer({ min: 0, max: 25 }),
    minute: fc.integer({ min: 0, max: 61 }),
    second: fc.integer({ min: 0, max: 61 }),
    ms: fc.integer({ min: 0, max: 999 }),
  })
  .map(
    ({ year, month, day, hour, minute, second, ms }) =>
      `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}.${pad(ms, 3)}Z`,
  );

const roundTrips = (text: string): boolean => {
  const ms = Date.parse(text);
  return Number.isFinite(ms) && new Date(ms).toISOString() === text;
};

it('a canonical timestamp is kept exactly when Date round-trips it, else refused', () => {
  fc.assert(
    fc.property(canonical, (text) => {
      expect(normalizeDateTime(text)).toBe(roundTrips(text) ? text : null);
    }),
    { numRuns: 5_000, seed: 2026 },
  );
});

it.each([
  ['2024-02-29T12:00:00.000Z', '2024-02-29T12:00:00.000Z'],
  ['2026-02-29T12:00:00.000Z', null],
  ['2000-02-29T00:00:00.000Z', '2000-02-29T00:00:00.000Z'],
  ['1900-02-29T00:00:00.000Z', null],
  ['2026-04-31T00:00:00.000Z', null],
  ['2026-12-31T23:59:59.999Z', '2026-12-31T23:59:59.999Z'],
  ['2026-11-21 04:41:00+01:00', '2026-11-21T03:41:00.000Z'],
])('%s → %s', (text, expected) => {
  expect(normalizeDateTime(text)).toBe(expected);
});
