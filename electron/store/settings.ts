/**
 * The user's settings (shared/settings.ts), kept in the database's meta table as one JSON value so they
 * travel with the data folder. A stored value the schema no longer accepts is replaced by the defaults
 * rather than stopping the app; a write the schema refuses changes nothing.
 */
import { Compile } from 'typebox/compile';
import { DEFAULT_SETTINGS, Settings } from '../../shared/settings';
import type { Store } from './database';

const check = Compile(Settings);
const KEY = 'settings';

export class SettingsError extends Error {}

/** Stored settings over the defaults (sections added by later versions take their defaults). */
export function readSettings(store: Store): Settings {
  const text = store.value<string>('SELECT value FROM meta WHERE key = ?', [KEY]);
  if (text === undefined) return structuredClone(DEFAULT_SETTINGS);
  try {
    const stored = JSON.parse(text) as Partial<Settings>;
    const merged = { ...structuredClone(DEFAULT_SETTINGS), ...stored };
    return check.Check(merged) ? merged : structuredClone(DEFAULT_SETTINGS);
  } catch {
    return structuredClone(DEFAULT_SETTINGS);
  }
}

/** Checks and stores the settings; the message names the first field the schema refuses. */
export function writeSettings(store: Store, settings: unknown): Settings {
  if (!check.Check(settings)) {
    const first = [...check.Errors(settings)][0];
    throw new SettingsError(`settings${first?.instancePath ?? ''}: ${first?.message ?? 'not valid'}`);
  }
  store.transaction(
    () =>
      store.run(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        [KEY, JSON.stringify(settings)],
      ),
    { dataChange: false },
  );
  return settings;
}
