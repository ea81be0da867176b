/**
 * normalizeDateTime's fast path (canonical timestamps, checked field by field without allocating) must
 * answer exactly as a round trip through Date would: the text itself when it is a real instant, null
 * when a field is out of range (2026-02-30, 24:00, a 29 February outside leap years). Every other form
 * becomes the canonical one, or null when its instant falls outside years 0000 to 9999 of UTC (an offset
 * can carry 0000-01-01 or 9999-12-31 out of them): what it returns always reads back as itself.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dateTimeRefusal, normalizeDateTime } from '../../../../electron/store/snapshot/dateTime';
import {
  lenientContext,
  normalizeDatasetRecord,
  normalizeTasksRecord,
  strictContext,
} from '../../../../electron/store/snapshot/normalize';
import { inRange, timeText } from '../../../helpers/timeText';

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
  // Minutes without seconds, with a zone (the seconds are read only after a colon).
  ['2026-11-21T04:41+01:00', '2026-11-21T03:41:00.000Z'],
  ['2026-11-21T04:41Z', '2026-11-21T04:41:00.000Z'],
  ['2026-11-21T24:00Z', null],
  ['2026-11-21T23:60-01:00', null],
  // The ends of the calendar, with offsets that keep them in it or carry them out.
  ['0000-01-01T00:00:00+01:00', null],
  ['0000-01-01T00:59:59.999+01:00', null],
  ['0000-01-01T01:00:00+01:00', '0000-01-01T00:00:00.000Z'],
  ['0000-01-01T00:00:00-01:00', '0000-01-01T01:00:00.000Z'],
  ['9999-12-31T23:30:00-01:00', null],
  ['9999-12-31T22:59:59.999-01:00', '9999-12-31T23:59:59.999Z'],
  ['9999-12-31T23:59:59.9999Z', '9999-12-31T23:59:59.999Z'],
  ['9999-12-31', '9999-12-31T00:00:00.000Z'],
  // Year 0 is a leap year, written in any form (as the fast path already knew).
  ['0000-02-29', '0000-02-29T00:00:00.000Z'],
  ['0000-02-29T12:00:00+00:00', '0000-02-29T12:00:00.000Z'],
  ['0000-02-29T00:00:00.000Z', '0000-02-29T00:00:00.000Z'],
  ['0100-02-29', null],
])('%s → %s', (text, expected) => {
  expect(normalizeDateTime(text)).toBe(expected);
});

it('any form it reads becomes a canonical time that reads back as itself, or null outside 0000–9999 UTC', () => {
  fc.assert(
    fc.property(timeText, (time) => {
      const normalized = normalizeDateTime(time.text);
      if (!inRange(time)) {
        expect(normalized).toBeNull();
        return;
      }
      expect(normalized).toBe(new Date(time.ms).toISOString());
      expect(normalized).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(normalizeDateTime(normalized!)).toBe(normalized);
    }),
    { numRuns: 5_000, seed: 2026 },
  );
});

it.each([
  [
    '0000-01-01T00:00:00+01:00',
    "'0000-01-01T00:00:00+01:00' is -000001-12-31T23:00:00.000Z in UTC: times must lie between 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z",
  ],
  [
    '9999-12-31T23:30:00-01:00',
    "'9999-12-31T23:30:00-01:00' is +010000-01-01T00:30:00.000Z in UTC: times must lie between 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z",
  ],
  ['2026-02-30', "'2026-02-30' is not an RFC 3339 datetime"],
  ['yesterday', "'yesterday' is not an RFC 3339 datetime"],
])('a refusal of %s says why: %s', (text, message) => {
  expect(normalizeDateTime(text)).toBeNull();
  expect(dateTimeRefusal(text)).toBe(message);
});

describe('a time outside years 0000 to 9999 of UTC in a record', () => {
  const record = {
    datasetId: 'a',
    latestDeliveryTimestamp: '0000-01-01T00:00:00+01:00',
    deliveryEventList: [{ deliveryId: 'd', deliveryDeadline: '9999-12-31T23:30:00-01:00' }],
  };

  it("becomes null in a sync's lenient reading, and is counted as a value it could not use", () => {
    const ctx = lenientContext();
    const kept = normalizeDatasetRecord(ctx, record, 'record')!;
    expect(kept.latestDeliveryTimestamp).toBeNull();
    expect(kept.deliveryEventList[0]!.deliveryDeadline).toBeNull();
    expect(ctx.problems.map((problem) => problem.path)).toEqual([
      'record.deliveryEventList[0].deliveryDeadline',
      'record.latestDeliveryTimestamp',
    ]);
  });

  it("is refused by an import's strict reading, naming the field", () => {
    expect(() => normalizeDatasetRecord(strictContext(), record, '$.datasets[0]')).toThrow(
      /^\$\.datasets\[0\]\.deliveryEventList\[0\]\.deliveryDeadline: '9999-12-31T23:30:00-01:00' is \+010000-01-01T00:30:00\.000Z in UTC/,
    );
  });

  it("stays as given in the normalize stage's timestamp, a plain string in the spec", () => {
    const tasks = normalizeTasksRecord(
      strictContext(),
      { normalize: { timestamp: '0000-01-01T00:00:00+01:00' } },
      '$.tasks["d"]',
    )!;
    expect(tasks.normalize.timestamp).toBe('0000-01-01T00:00:00+01:00');
  });
});
