/**
 * The user's settings (shared/settings.ts) in `<dataDir>/settings.json`, through `conf`: one JSON Schema
 * (from the TypeBox schema) checks every write, and versioned migrations carry a file from one release
 * to the next. The app opens the same file through electron-store (a `conf` subclass) with the same
 * options and `name: 'settings'`; the headless CLI through `conf` itself with `configName: 'settings'`
 * (electron-store ignores `configName`: its `name` is the file name).
 *
 * A file the schema no longer accepts (edited by hand, say) is moved aside, not lost, and the defaults
 * used; a write the schema refuses changes nothing and names the first field it refuses.
 */
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import Conf, { type Options } from 'conf';
import { Compile } from 'typebox/compile';
import { DEFAULT_SETTINGS, Settings, settingsProblem } from '../../../shared/settings';
import { APP_VERSION } from '../../../shared/version';
import type { Store } from '../database';

const check = Compile(Settings);

export const SETTINGS_FILE_NAME = 'settings';

export class SettingsError extends Error {}

/** What the engine reads and writes; `conf` and electron-store both provide it. */
export type SettingsBackend = Pick<Conf<Settings>, 'store' | 'path'>;

export interface SettingsFile {
  readonly path: string;
  read(): Settings;
  write(settings: unknown): Settings;
}

/**
 * Before 0.2.0 the settings were one JSON value in the database's meta table: the first open of the
 * settings file takes them over (when they are still valid) and removes them from the database.
 */
function fromDatabase(store: Store | undefined): (conf: Conf<Settings>) => void {
  return (conf) => {
    if (!store) return;
    const text = store.value<string>("SELECT value FROM meta WHERE key = 'settings'");
    if (text === undefined) return;
    try {
      const stored = { ...structuredClone(DEFAULT_SETTINGS), ...(JSON.parse(text) as Partial<Settings>) };
      if (check.Check(stored)) conf.store = stored;
    } catch {
      // Unreadable: the defaults stay.
    }
    store.transaction(() => store.run("DELETE FROM meta WHERE key = 'settings'"), { dataChange: false });
  };
}

/**
 * What `conf` and electron-store take alike: everything but the file's name (conf's `configName`,
 * electron-store's `name`) and the version (electron-store takes the app's own).
 */
export type ConfFileOptions<T extends Record<string, unknown>> = Omit<
  Options<T>,
  'configName' | 'projectName' | 'projectVersion' | 'projectSuffix'
>;

/** The options both `conf` (headless) and electron-store (the app) open the settings file with. */
export function settingsFileOptions(dataDir: string, store?: Store): ConfFileOptions<Settings> {
  return {
    cwd: dataDir,
    schema: Settings.properties as Options<Settings>['schema'],
    defaults: structuredClone(DEFAULT_SETTINGS),
    migrations: { '0.2.0': fromDatabase(store) },
    // The data directory is the user's own (owner-only, like the database).
    configFileMode: 0o600,
    watch: false,
  };
}

/**
 * Opens a `conf` file (settings, the app's window state), moving a file it refuses (not JSON, or
 * refused by its schema) aside as `<file>.invalid-<time>` and opening again from the defaults, so a bad
 * hand edit never stops the app and nothing is lost.
 */
export function openConfFile<T>(
  open: () => T,
  file: string,
  now: () => Date,
  onRecovered?: (movedTo: string, error: unknown) => void,
): T {
  try {
    return open();
  } catch (error) {
    if (!existsSync(file)) throw error;
    const movedTo = `${file}.invalid-${now().toISOString().replace(/[:.]/g, '-')}`;
    renameSync(file, movedTo);
    onRecovered?.(movedTo, error);
    return open();
  }
}

/** `<dataDir>/settings.json`. */
export const settingsPath = (dataDir: string): string => join(dataDir, `${SETTINGS_FILE_NAME}.json`);

/** The headless CLI's settings file (`serve`, and commands that read settings). */
export function openHeadlessSettings(
  dataDir: string,
  store: Store,
  now: () => Date,
  onRecovered?: (movedTo: string, error: unknown) => void,
): SettingsFile {
  return settingsFile(
    openConfFile(
      () =>
        new Conf<Settings>({
          ...settingsFileOptions(dataDir, store),
          configName: SETTINGS_FILE_NAME,
          projectVersion: APP_VERSION,
        }),
      settingsPath(dataDir),
      now,
      onRecovered,
    ),
  );
}

const INTERNAL_KEY = '__internal__';

/**
 * The settings in a stored object, section by section: each top-level section the schema accepts is
 * kept, any other is the default (a hand edit of one section does not lose the others). `kept` names
 * the sections taken from `stored`.
 */
export function validSettingsIn(stored: Record<string, unknown>): { settings: Settings; kept: string[] } {
  let settings = structuredClone(DEFAULT_SETTINGS);
  const kept: string[] = [];
  for (const key of Object.keys(DEFAULT_SETTINGS)) {
    if (!(key in stored)) continue;
    const candidate = { ...settings, [key]: stored[key] };
    if (!check.Check(candidate)) continue;
    settings = structuredClone(candidate);
    kept.push(key);
  }
  return { settings, kept };
}

export function settingsFile(backend: SettingsBackend): SettingsFile {
  return {
    path: backend.path,
    read() {
      try {
        const { [INTERNAL_KEY]: _internal, ...stored } = backend.store as Settings & {
          [INTERNAL_KEY]?: unknown;
        };
        const merged = { ...structuredClone(DEFAULT_SETTINGS), ...stored };
        return check.Check(merged) ? merged : structuredClone(DEFAULT_SETTINGS);
      } catch {
        // Edited into something the schema refuses while running: the defaults until it is fixed.
        return structuredClone(DEFAULT_SETTINGS);
      }
    },
    write(settings) {
      if (!check.Check(settings)) {
        const first = [...check.Errors(settings)][0];
        throw new SettingsError(`settings${first?.instancePath ?? ''}: ${first?.message ?? 'not valid'}`);
      }
      const problem = settingsProblem(settings);
      if (problem) throw new SettingsError(`settings${problem.field}: ${problem.message}`);
      backend.store = structuredClone(settings);
      return settings;
    },
  };
}

/** Settings held in memory only (tests and tools without a data directory), checked the same way. */
export function memorySettings(initial: Settings = DEFAULT_SETTINGS): SettingsFile {
  let current = structuredClone(initial);
  return settingsFile({
    path: ':memory:',
    get store() {
      return structuredClone(current);
    },
    set store(value) {
      current = structuredClone(value);
    },
  });
}
