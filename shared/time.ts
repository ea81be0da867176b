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
