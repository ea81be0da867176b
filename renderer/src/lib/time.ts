/** Times as people read them: relative ("12 min ago", "in 3 h") with the exact time on hover. */
import { dateTimeFormat } from '../../../shared/time';

export { relativeTime } from '../../../shared/time';

/** dateStyle/timeStyle cannot be combined with timeZoneName: the parts are spelled out. */
const formatter = (timeZone: string | undefined): Intl.DateTimeFormat =>
  dateTimeFormat(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZone,
    timeZoneName: 'short',
  });

/** The exact time in the user's zone (or the given IANA zone), with the zone's name. */
export function exactTime(iso: string | null, timeZone?: string): string {
  if (!iso) return 'unknown';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return formatter(timeZone).format(at);
}

/** "3 h 12 min" for a duration in milliseconds (lateness, sync durations). */
export function duration(ms: number): string {
  const minutes = Math.round(Math.abs(ms) / 60_000);
  if (minutes < 1) return `${Math.round(Math.abs(ms) / 1000)} s`;
  const hours = Math.floor(minutes / 60);
  const days = Math.floor(hours / 24);
  if (days > 0) return `${days} d ${hours % 24} h`;
  if (hours > 0) return `${hours} h ${minutes % 60} min`;
  return `${minutes} min`;
}
