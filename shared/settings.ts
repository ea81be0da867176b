/**
 * The user's settings (docs/architecture.md#the-window "Settings"): one TypeBox schema gives the type, the defaults and the
 * check of every write, in the engine and in the settings window. Sources and API keys have their own
 * calls (they are records, not preferences).
 */
import Type, { type Static } from 'typebox';
import { INTERVAL_LIMITS } from './intervals';
import { DateTimeInRange } from './timeRange';

const Clock = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, local time' });

export { INTERVAL_LIMITS };

export const RETENTION_LIMITS = [10, 1000] as const;
/** Hours between failures of one cause that still make one incident. */
export const INCIDENT_GAP_LIMITS = [1, 72] as const;
export const DEFAULT_INCIDENT_GAP_HOURS = 6;

export const Settings = Type.Object(
  {
    intervals: Type.Object(
      {
        pollSeconds: Type.Integer({
          minimum: INTERVAL_LIMITS.pollSeconds[0],
          maximum: INTERVAL_LIMITS.pollSeconds[1],
        }),
        crawlMinutes: Type.Integer({
          minimum: INTERVAL_LIMITS.crawlMinutes[0],
          maximum: INTERVAL_LIMITS.crawlMinutes[1],
        }),
      },
      { additionalProperties: false },
    ),
    notifications: Type.Object(
      {
        /** RFC 3339 time until which notifications are paused; "forever" until resumed; null when not paused. */
        pausedUntil: Type.Union([DateTimeInRange, Type.Literal('forever'), Type.Null()]),
        quietHours: Type.Object(
          { enabled: Type.Boolean(), start: Clock, end: Clock },
          { additionalProperties: false },
        ),
        recoveryNotices: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
    window: Type.Object(
      {
        /** Closing the window keeps the app running in the tray (alerts keep coming); off: closing quits. */
        closeToTray: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
    api: Type.Object({ port: Type.Integer({ minimum: 0, maximum: 65535 }) }, { additionalProperties: false }),
    triage: Type.Object(
      {
        /** Who acknowledges from this machine ("" = the OS user name). */
        name: Type.String({ maxLength: 100 }),
        /** An unacknowledged failure is reminded every this many minutes, at most 3 times (0 = never). */
        reminderMinutes: Type.Integer({ minimum: 0, maximum: 1440 }),
        /**
         * Failures of one cause this many hours apart or closer are one incident (docs/decisions.md
         * "Incidents: why 6 hours"). Optional: a settings file from before incidents has none.
         */
        incidentGapHours: Type.Optional(
          Type.Integer({ minimum: INCIDENT_GAP_LIMITS[0], maximum: INCIDENT_GAP_LIMITS[1] }),
        ),
      },
      { additionalProperties: false },
    ),
    data: Type.Object(
      {
        /** Deliveries kept per dataset (older ones are dropped at the next write). */
        retentionDeliveries: Type.Integer({ minimum: RETENTION_LIMITS[0], maximum: RETENTION_LIMITS[1] }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type Settings = Static<typeof Settings>;

export const DEFAULT_SETTINGS: Settings = {
  intervals: { pollSeconds: 60, crawlMinutes: 15 },
  notifications: {
    pausedUntil: null,
    quietHours: { enabled: false, start: '22:00', end: '07:00' },
    recoveryNotices: false,
  },
  window: { closeToTray: true },
  api: { port: 47800 },
  triage: { name: '', reminderMinutes: 30, incidentGapHours: DEFAULT_INCIDENT_GAP_HOURS },
  data: { retentionDeliveries: 100 },
};

/** The incident gap in force, in milliseconds. */
export function incidentGapMs(settings: Pick<Settings, 'triage'>): number {
  return (settings.triage.incidentGapHours ?? DEFAULT_INCIDENT_GAP_HOURS) * 3_600_000;
}
