/**
 * Quiet hours (docs/architecture.md#quiet-hours-pause-and-snoozes): a daily span of local wall-clock time, e.g. 22:00–07:00, during which
 * failures are held and announced as one summary when it ends. Read in the user's time zone, so a
 * daylight-saving change moves nothing: 22:00 stays 22:00 on the clock.
 */
import type { Settings } from '../../shared/settings';
import { dateTimeFormat } from '../../shared/time';

type QuietHours = Settings['notifications']['quietHours'];

const minutesOf = (clock: string): number => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/** Minutes since local midnight in `timeZone`. */
export function localMinutes(now: Date, timeZone: string): number {
  const format = dateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const parts = format.formatToParts(now);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return part('hour') * 60 + part('minute');
}

/**
 * Whether `now` falls in quiet hours: from start (included) to end (excluded), across midnight when
 * end is earlier than start. Equal start and end are an empty span (nothing is held), not a whole day:
 * a whole day of silence is what "Pause notifications" is for.
 */
export function isQuiet(quietHours: QuietHours, now: Date, timeZone: string): boolean {
  if (!quietHours.enabled) return false;
  const start = minutesOf(quietHours.start);
  const end = minutesOf(quietHours.end);
  if (start === end) return false;
  const minute = localMinutes(now, timeZone);
  return start < end ? minute >= start && minute < end : minute >= start || minute < end;
}

/** Whether notifications are paused at `now` ("until resumed", or until a time still ahead). */
export function isPaused(pausedUntil: Settings['notifications']['pausedUntil'], now: Date): boolean {
  if (pausedUntil === null) return false;
  return pausedUntil === 'forever' || Date.parse(pausedUntil) > now.getTime();
}
