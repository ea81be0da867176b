/**
 * Times as a file or a remote may write them, each with the instant it names: every form
 * normalizeDateTime reads (docs/decisions.md "Store": any RFC 3339 / ISO 8601 form, a missing zone means
 * UTC, a date alone midnight UTC) — canonical, offsets `+hh:mm`/`-hhmm`/`Z`/`z`/`-00:00`, no zone, a space
 * or `t` for `T`, no seconds, 1 to 9 fractional digits (past the millisecond they are cut), spaces around —
 * over the whole calendar of years 0000 to 9999 as written, so the instant may fall a few hours outside it.
 */
import fc from 'fast-check';

// The range written out here, not imported from shared/timeRange.ts: the test's own reading of it, so a
// wrong range in the app cannot make its own test agree.
export const EARLIEST_MS = Date.parse('0000-01-01T00:00:00.000Z');
export const LATEST_MS = Date.parse('9999-12-31T23:59:59.999Z');
const DAY = 86_400_000;

export interface TimeText {
  text: string;
  /** The instant the text names (what Date.parse of its UTC reading gives). */
  ms: number;
}

/** Whether normalizeDateTime keeps the time: its instant lies in years 0000 to 9999 of UTC. */
export const inRange = (time: TimeText): boolean => time.ms >= EARLIEST_MS && time.ms <= LATEST_MS;

const pad = (value: number, width: number): string => String(value).padStart(width, '0');

/** The wall-clock time as written (milliseconds since 0000-01-01 of the proleptic calendar, as UTC). */
const wallClock = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: EARLIEST_MS, max: LATEST_MS }) },
  // Near the ends of the calendar, where an offset carries the instant out of it.
  { weight: 2, arbitrary: fc.integer({ min: EARLIEST_MS, max: EARLIEST_MS + 2 * DAY }) },
  { weight: 2, arbitrary: fc.integer({ min: LATEST_MS - 2 * DAY, max: LATEST_MS }) },
  { weight: 1, arbitrary: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }) },
);

const offsetMinutes = fc.oneof(
  fc.constantFrom(0, 60, -60, 330, -210, 23 * 60 + 59, -(23 * 60 + 59)),
  fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
);

export const timeText: fc.Arbitrary<TimeText> = fc
  .record({
    wall: wallClock,
    form: fc.constantFrom('canonical', 'dateOnly', 'minutes', 'seconds', 'fraction'),
    zone: fc.constantFrom('utc', 'colon', 'compact', 'none'),
    offset: offsetMinutes,
    fraction: fc.integer({ min: 1, max: 9 }),
    separator: fc.constantFrom('T', ' ', 't'),
    utc: fc.constantFrom('Z', 'z', '+00:00', '-00:00', '+0000'),
    spaced: fc.boolean(),
  })
  .map(({ wall, form, zone, offset, fraction, separator, utc, spaced }): TimeText => {
    const at = new Date(wall);
    if (form === 'canonical') return { text: at.toISOString(), ms: wall };
    const padded = (text: string): string => (spaced ? ` ${text}\t` : text);
    const date = `${pad(at.getUTCFullYear(), 4)}-${pad(at.getUTCMonth() + 1, 2)}-${pad(at.getUTCDate(), 2)}`;
    // Midnight UTC of that date (the calendar starts at a midnight).
    if (form === 'dateOnly') return { text: padded(date), ms: wall - ((wall - EARLIEST_MS) % DAY) };
    const millis = at.getUTCMilliseconds();
    const seconds = at.getUTCSeconds();
    let clock = `${pad(at.getUTCHours(), 2)}:${pad(at.getUTCMinutes(), 2)}`;
    // What the clock as written shows: the digits not written are zeros.
    let shown = wall - seconds * 1000 - millis;
    if (form !== 'minutes') {
      clock += `:${pad(seconds, 2)}`;
      shown += seconds * 1000;
    }
    if (form === 'fraction') {
      // Past the third digit, zeros; fewer than three cut the milliseconds.
      const digits = `${pad(millis, 3)}000000`.slice(0, fraction);
      clock += `.${digits}`;
      shown += Number(`${digits}00`.slice(0, 3));
    }
    const sign = offset < 0 ? '-' : '+';
    const hours = pad(Math.floor(Math.abs(offset) / 60), 2);
    const minutes = pad(Math.abs(offset) % 60, 2);
    const written =
      zone === 'utc'
        ? utc
        : zone === 'colon'
          ? `${sign}${hours}:${minutes}`
          : zone === 'compact'
            ? `${sign}${hours}${minutes}`
            : '';
    const ms = shown - (zone === 'colon' || zone === 'compact' ? offset * 60_000 : 0);
    return { text: padded(`${date}${separator}${clock}${written}`), ms };
  });
