/** What every alerts decision reads: the store, the settings and the clock of the moment. */
import type { Settings } from '../../shared/settings';
import type { Store } from '../store/database';
import { listSnoozes } from '../store/tables/snoozes';
import { isPaused, isQuiet } from './quietHours';

export interface AlertsContext {
  store: Store;
  settings: Settings;
  now: Date;
  /** The user's IANA zone, for quiet hours. */
  timeZone: string;
}

export const paused = (ctx: AlertsContext): boolean =>
  isPaused(ctx.settings.notifications.pausedUntil, ctx.now);

export const quiet = (ctx: AlertsContext): boolean =>
  isQuiet(ctx.settings.notifications.quietHours, ctx.now, ctx.timeZone);

/** The org's datasets with a snooze in force now. */
export function snoozedIds(ctx: AlertsContext, orgId: string): Set<string> {
  return new Set(listSnoozes(ctx.store, orgId, ctx.now).map((snooze) => snooze.datasetId));
}
