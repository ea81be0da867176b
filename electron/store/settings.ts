/** App settings kept in the store's `meta` table, with defaults (DESIGN.md §4 intervals). */
import type { Store } from './database';

export interface SyncSettings {
  /** Fast poll of FAILED/MISSING datasets. */
  pollSeconds: number;
  /** Full crawl of the whole org. */
  crawlMinutes: number;
}

export const DEFAULT_SYNC_SETTINGS: SyncSettings = { pollSeconds: 60, crawlMinutes: 15 };

export const SYNC_LIMITS = {
  pollSeconds: [10, 3600],
  crawlMinutes: [1, 1440],
} as const satisfies Record<keyof SyncSettings, readonly [number, number]>;

export class SettingsError extends Error {}

const KEY = 'settings.sync';

export function getSyncSettings(store: Store): SyncSettings {
  const text = store.value<string>('SELECT value FROM meta WHERE key = ?', [KEY]);
  if (text === undefined) return { ...DEFAULT_SYNC_SETTINGS };
  const saved = JSON.parse(text) as Partial<SyncSettings>;
  return { ...DEFAULT_SYNC_SETTINGS, ...saved };
}

export function saveSyncSettings(store: Store, change: Partial<SyncSettings>): SyncSettings {
  const next = { ...getSyncSettings(store), ...change };
  for (const name of Object.keys(SYNC_LIMITS) as (keyof SyncSettings)[]) {
    const [min, max] = SYNC_LIMITS[name];
    const value = next[name];
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new SettingsError(`${name} must be a whole number from ${min} to ${max}`);
    }
  }
  store.run(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    [KEY, JSON.stringify(next)],
  );
  return next;
}
