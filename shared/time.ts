/** Relative times as people read them ("12 minutes ago", "in 3 hours"): the window and the tray. */
import { formatDistanceStrict } from 'date-fns';

export function relativeTime(iso: string | null, now: Date): string {
  if (!iso) return '—';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '—';
  const distance = formatDistanceStrict(at, now, { roundingMethod: 'floor' });
  if (Math.abs(at.getTime() - now.getTime()) < 45_000) return 'just now';
  return at.getTime() <= now.getTime() ? `${distance} ago` : `in ${distance}`;
}

/** Formatters by locale and options: constructing one costs far more than formatting (tables format thousands). */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** `new Intl.DateTimeFormat(locale, options)`, made once for each locale and options and then reused. */
export function dateTimeFormat(
  locale: string | undefined,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  const key = `${locale ?? ''}|${JSON.stringify(options)}`;
  let format = formatters.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, options);
    formatters.set(key, format);
  }
  return format;
}

/** "2026-11-26 09:00": the wall clock of a zone, 24-hour, as the Markdown reports write it. */
export function wallClock(at: Date, timeZone: string): string {
  const parts = dateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes): string =>
    parts.find((found) => found.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}`;
}

/** The IANA name of a time zone this system knows (as it spells it), or null. */
export function knownZone(zone: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-GB', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}
