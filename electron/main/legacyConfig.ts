/**
 * 0.2.0 wrote the settings and the window state both to `<dataDir>/config.json` (electron-store names
 * its file by its `name` option and ignored the `configName` it was given), then could not start. At
 * start, what that file holds is carried over, the file is moved aside as `config.json.migrated-0.2.0`
 * (never deleted), and it is not read again:
 * - its settings (possibly taken over from the 0.1.0 database, which no longer has them) go to
 *   `settings.json`, section by section as the schema accepts them, unless `settings.json` exists
 *   (the headless CLI made it, and it has been the one in use);
 * - a `window` key holding a window state (bounds) goes to `window-state.json`, unless that exists.
 */
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../store/instance/atomicFile';
import { settingsPath, validSettingsIn } from '../store/tables/settings';
import { isWindowState } from './window';
import { windowStatePath } from './windowState';

export const LEGACY_CONFIG_FILE = 'config.json';
const INTERNAL_KEY = '__internal__';

export interface LegacyConfigMigration {
  movedTo: string;
  /** The settings sections carried to settings.json (none when it existed or nothing was readable). */
  settings: string[];
  /** A window state was carried to window-state.json. */
  window: boolean;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parsed(file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const writeJson = (file: string, value: unknown): void =>
  writeFileAtomicSync(file, (append) => append(`${JSON.stringify(value, undefined, '\t')}\n`));

/** Carries a 0.2.0 `config.json` over; undefined when there is none. */
export function migrateLegacyConfig(dataDir: string, now: () => Date): LegacyConfigMigration | undefined {
  const file = join(dataDir, LEGACY_CONFIG_FILE);
  if (!existsSync(file)) return undefined;
  const result: LegacyConfigMigration = { movedTo: '', settings: [], window: false };
  const stored = parsed(file);
  if (stored) {
    const { [INTERNAL_KEY]: internal, window, ...rest } = stored;
    const windowState = isWindowState(window) ? window : undefined;
    if (windowState && !existsSync(windowStatePath(dataDir))) {
      writeJson(windowStatePath(dataDir), { window: windowState });
      result.window = true;
    }
    if (!existsSync(settingsPath(dataDir))) {
      // The `window` key is the settings' own ({ closeToTray }) unless it was the window state.
      const { settings, kept } = validSettingsIn(windowState ? rest : { ...rest, window });
      // conf's record of migrations already run (the one from the 0.1.0 database among them).
      writeJson(
        settingsPath(dataDir),
        isRecord(internal) ? { ...settings, [INTERNAL_KEY]: internal } : settings,
      );
      result.settings = kept;
    }
  }
  let movedTo = `${file}.migrated-0.2.0`;
  if (existsSync(movedTo)) movedTo += `-${now().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(file, movedTo);
  result.movedTo = movedTo;
  return result;
}
