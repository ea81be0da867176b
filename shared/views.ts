/**
 * What the engine answers the window's calls with, besides the table's rows (shared/rows.ts): orgs,
 * sources, settings, keys, snoozes, a dataset's deadlines and its place in triage. The calls that
 * answer them are in shared/rpc.ts; these are the shapes the views read.
 */
import type { AcknowledgementView } from './causes';
import type { TasksRecord } from './schemas';
import type { Settings } from './settings';
import type { DeliveryHabits } from './upcoming';

export interface OrgView {
  id: string;
  name: string;
  datasets: number;
  /** Start of the last successful sync (X-Synced-At), or null. */
  lastSyncedAt: string | null;
}

export interface DeliveryTasksView {
  tasks: TasksRecord | null;
  /** Why there are no tasks: no such delivery, or the remote cannot be asked now (offline, no source). */
  missing: 'unknown-delivery' | 'tasks-not-synced' | null;
}

export interface SourceView {
  id: string;
  orgId: string;
  name: string;
  baseUrl: string;
  enabled: boolean;
  /** A key is available for it (sealed in the app, or from the environment headless). */
  hasKey: boolean;
  /** The key masked ("…3f9a"): which key is stored, never the key. */
  keyHint: string | null;
  createdAt: string;
}

export interface SettingsView {
  settings: Settings;
  defaults: Settings;
  /** Where this engine runs: the local API it serves, its data folder. */
  runtime: { apiUrl: string; dataDir: string; version: string };
  /** Whether remote keys can be saved here (the app seals them; headless they come from the environment). */
  keys: { canStore: boolean; hint: string };
  /** Settings given on the command line win over stored ones until the next start. */
  overridden: string[];
  /** Who acknowledges when the triage name is empty: the OS user running the engine. */
  osUserName: string;
  /** What the desktop app's system answered about its habits; absent headless (`serve`). */
  desktop?: DesktopStatus;
}

/** The desktop habits as the system took them (docs/decisions.md "Desktop habits (issue 27)"). */
export interface DesktopStatus {
  globalShortcut: {
    /** The shortcut held now; null: none. */
    registered: string | null;
    /** Why the saved one is not held (another app has it), or null. */
    problem: string | null;
  };
  openAtLogin: {
    /** Electron has login items on macOS and Windows only. */
    supported: boolean;
    /** What the system reports now. */
    enabled: boolean;
    /** macOS waits for the user to allow it in System Settings → General → Login Items. */
    needsApproval: boolean;
  };
  /** Named sounds play here (macOS); elsewhere a named sound is the system's sound. */
  namedSounds: boolean;
}

export interface ApiKeyView {
  id: string;
  orgId: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export const SNOOZE_KINDS = ['1h', '4h', 'next-delivery', 'healthy'] as const;
export type SnoozeKind = (typeof SNOOZE_KINDS)[number];
export interface SnoozeView {
  orgId: string;
  datasetId: string;
  datasetName: string | null;
  kind: SnoozeKind;
  /** For timed snoozes, when they end. */
  until: string | null;
  /** For "next delivery", the delivery it was set on. */
  deliveryId: string | null;
  createdAt: string;
}

/** A dataset's deadlines as the engine's clock keeps them. */
export interface DatasetDeadlines {
  /** Why its schedule cannot be read; null when it can. */
  problem: string | null;
  /** The zone the schedule is read in ("UTC" for none). */
  timeZone: string;
  /** RFC 3339 UTC; null: none. */
  previous: string | null;
  /** The next deadlines, soonest first (at most five). */
  next: string[];
  habits: DeliveryHabits;
  /** Deadlines passed since the last successful sync while the data is stale (0: none). */
  overdue: number;
}

/** A troubled dataset's place in triage: its incident and cause, and who owns it. */
export interface DatasetTriage {
  incidentId: string;
  causeId: string;
  causeTitle: string;
  message: string | null;
  deliveryId: string | null;
  acknowledgement: AcknowledgementView | null;
}
