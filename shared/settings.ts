/**
 * The user's settings (docs/architecture.md#the-window "Settings"): one TypeBox schema gives the type, the defaults and the
 * check of every write, in the engine and in the settings window. Sources and API keys have their own
 * calls (they are records, not preferences).
 */
import Type, { type Static } from 'typebox';
import { acceleratorProblem } from './accelerator';
import { INTERVAL_LIMITS } from './intervals';
import { DateTimeInRange } from './timeRange';

const Clock = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, local time' });

export { INTERVAL_LIMITS };

export const RETENTION_LIMITS = [10, 1000] as const;
/** Hours between failures of one cause that still make one incident. */
export const INCIDENT_GAP_LIMITS = [1, 72] as const;
export const DEFAULT_INCIDENT_GAP_HOURS = 6;

/**
 * macOS's own alert sounds (/System/Library/Sounds), which Electron's Notification plays by name there;
 * other systems have no named sounds (docs/decisions.md "Desktop habits (issue 27)").
 */
export const MAC_SOUNDS = [
  'Basso',
  'Blow',
  'Bottle',
  'Frog',
  'Funk',
  'Glass',
  'Hero',
  'Morse',
  'Ping',
  'Pop',
  'Purr',
  'Sosumi',
  'Submarine',
  'Tink',
] as const;
/** The system's notification sound, none, or (macOS) one of its alert sounds by name. */
export const Sound = Type.Enum(['system', 'silent', ...MAC_SOUNDS]);
export type Sound = Static<typeof Sound>;

export const Sounds = Type.Object({ notify: Sound, urgent: Sound }, { additionalProperties: false });
export type Sounds = Static<typeof Sounds>;
/** A notification sounds as the system's do; an urgent one is told apart by its own sound. */
export const DEFAULT_SOUNDS: Sounds = { notify: 'system', urgent: 'Sosumi' };

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
        /** Absent until chosen (and in a file from before issue 27): DEFAULT_SOUNDS, through soundsOf. */
        sounds: Type.Optional(Sounds),
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
    /** The desktop app's habits; `serve` keeps them in the file but uses none. */
    desktop: Type.Object(
      {
        /** An Electron accelerator that brings the window forward on Triage; null: none. */
        globalShortcut: Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()]),
        /** Open the app when the user logs in (macOS and Windows). */
        openAtLogin: Type.Boolean(),
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
  desktop: { globalShortcut: null, openAtLogin: false },
  api: { port: 47800 },
  triage: { name: '', reminderMinutes: 30, incidentGapHours: DEFAULT_INCIDENT_GAP_HOURS },
  data: { retentionDeliveries: 100 },
};

/** The incident gap in force, in milliseconds. */
export function incidentGapMs(settings: Pick<Settings, 'triage'>): number {
  return (settings.triage.incidentGapHours ?? DEFAULT_INCIDENT_GAP_HOURS) * 3_600_000;
}

/** The sounds in force. */
export function soundsOf(settings: Pick<Settings, 'notifications'>): Sounds {
  return settings.notifications.sounds ?? DEFAULT_SOUNDS;
}

/**
 * What a schema cannot say about settings: the first problem, by its field, or null. The settings
 * file refuses a write with one; the window shows it under the field.
 */
export function settingsProblem(settings: Settings): { field: string; message: string } | null {
  const shortcut = settings.desktop.globalShortcut;
  const problem = shortcut === null ? null : acceleratorProblem(shortcut);
  return problem === null ? null : { field: '/desktop/globalShortcut', message: problem };
}
