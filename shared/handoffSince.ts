/**
 * Where a handoff's window starts: `since` as people type it (a duration back from now, or an RFC 3339
 * time), read the same way by the window, the CLI and `/local/v1/handoff`.
 */
import { parseISO } from 'date-fns';
import { SINCE_FORMS } from './handoffOptions';
import { TIME_RANGE, inTimeRange } from './timeRange';

const DURATION = /^(\d{1,6})([mhd])$/;
/** The longest duration back: a year (a longer look back names its start as a time). */
export const MAX_SINCE_DAYS = 366;
const MAX_SINCE = `${MAX_SINCE_DAYS}d, ${MAX_SINCE_DAYS * 24}h or ${MAX_SINCE_DAYS * 24 * 60}m`;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * Reads `since` (a duration back from `now`, or an RFC 3339 time) into the window's start. Throws an
 * Error saying what was wrong and what is allowed (the caller names its parameter): unreadable, a
 * duration of 0 or over a year, a time after `now` or outside the years 0000–9999.
 */
export function parseHandoffSince(text: string, now: Date): Date {
  const shown = text.length > 60 ? `${text.slice(0, 60)}…` : text;
  const duration = DURATION.exec(text.trim());
  if (duration) {
    const ms = Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS];
    if (ms === 0) throw new Error(`'${shown}' is an empty window: give ${SINCE_FORMS}`);
    if (ms > MAX_SINCE_DAYS * UNIT_MS.d)
      throw new Error(`'${shown}' is over a year back (at most ${MAX_SINCE}): for longer, give a time`);
    const start = now.getTime() - ms;
    if (!inTimeRange(start)) throw new Error(`'${shown}' back from now is before year 0000: give a time`);
    return new Date(start);
  }
  const at = RFC3339.test(text.trim()) ? parseISO(text.trim()) : null;
  if (at === null || Number.isNaN(at.getTime())) throw new Error(`'${shown}' is not ${SINCE_FORMS}`);
  if (!inTimeRange(at.getTime()))
    throw new Error(`'${shown}' is outside the times this app keeps (${TIME_RANGE})`);
  if (at.getTime() > now.getTime())
    throw new Error(`'${shown}' is in the future (now is ${now.toISOString()}): give ${SINCE_FORMS}`);
  return at;
}
