/**
 * Times from outside (an import file, a remote page) in the one form the store keeps: RFC 3339 UTC with
 * milliseconds, within years 0000 to 9999, and why a time that is not one is refused.
 */
import { EARLIEST_TIME, LATEST_TIME, inTimeRange } from '../../../shared/timeRange';
import { shortQuote } from './importRules';

const ZONE = /(Z|[+-]\d{2}(:?\d{2})?)$/i;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i;

const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** RFC 3339 / ISO 8601 with any offset (none means UTC) → `2026-11-21T04:41:00.000Z`; null if unparseable. */
export function normalizeDateTime(text: string): string | null {
  // Fast path: a remote that already sends the canonical form (a sync or an import reads hundreds of
  // thousands): its fields checked in place, nothing allocated. Four digits of year and Z: always in range.
  if (CANONICAL.test(text) && canonicalInRange(text)) return text;
  const ms = instantOf(text);
  // Years 0000–9999 in UTC only: `toISOString` writes others as `+010000-…` or `-000001-…`, which are
  // not RFC 3339, and an export holding one would not import again (docs/decisions.md "Import").
  return ms === null || !inTimeRange(ms) ? null : new Date(ms).toISOString();
}

/** The instant a non-canonical time names (perhaps outside the stored range), or null if it names none. */
function instantOf(text: string): number | null {
  const trimmed = text.trim();
  if (!ISO_DATE_TIME.test(trimmed)) return null;
  const hasTime = trimmed.length > 10;
  const withT = trimmed.replace(' ', 'T');
  const zoned = !hasTime ? `${withT}T00:00:00Z` : ZONE.test(withT) ? withT : `${withT}Z`;
  const ms = Date.parse(zoned);
  return Number.isFinite(ms) && fieldsInRange(trimmed) ? ms : null;
}

/** Why normalizeDateTime refused `text` (it returned null), as a message naming what is allowed. */
export function dateTimeRefusal(text: string): string {
  const ms = instantOf(text);
  if (ms === null) return `${shortQuote(text)} is not an RFC 3339 datetime`;
  return `${shortQuote(text)} is ${new Date(ms).toISOString()} in UTC: times must lie between ${EARLIEST_TIME} and ${LATEST_TIME}`;
}

/** The number written by the digits of `text` from `start` to `end` (the caller knows they are digits). */
function digits(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) value = value * 10 + text.charCodeAt(i) - 48;
  return value;
}

/** Days in a month of the proleptic Gregorian calendar (year 0 is a leap year, as in ISO 8601). */
function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** A canonical `YYYY-MM-DDTHH:MM:SS.mmmZ` whose fields are a real date and time (as toISOString would write). */
function canonicalInRange(text: string): boolean {
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  if (month < 1 || month > 12 || day < 1) return false;
  return (
    day <= daysInMonth(digits(text, 0, 4), month) &&
    digits(text, 11, 13) <= 23 &&
    digits(text, 14, 16) <= 59 &&
    digits(text, 17, 19) <= 59
  );
}

/**
 * Date.parse rolls 2026-02-30 over to March: check the calendar and clock fields themselves (those of
 * `text` as written, before its offset applies). `text` matched ISO_DATE_TIME: the fields are digits at
 * fixed places, seconds only when a colon follows the minutes (`04:41Z`, `04:41+01:00` have none).
 */
function fieldsInRange(text: string): boolean {
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(digits(text, 0, 4), month)) return false;
  if (text.length <= 10) return true;
  const second = text.charAt(16) === ':' ? digits(text, 17, 19) : 0;
  return digits(text, 11, 13) <= 23 && digits(text, 14, 16) <= 59 && second <= 59;
}
