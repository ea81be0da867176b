/**
 * The app's side of the engine: its settings file (electron-store, migrated from the database of 0.1.0
 * once) and `runEngine` as the app runs it, with the built-in demo when no source is configured (it
 * writes runtime.json for scripts, on whichever port it got).
 */
import type { Settings } from '../../shared/settings';
import type { DesktopStatus } from '../../shared/views';
import { APP_VERSION } from '../../shared/version';
import { PortInUseError } from '../api/server';
import type { Announcement } from '../alerts/types';
import { type EngineOptions, type RunningEngine, runEngine } from '../engine/runEngine';
import type { Store } from '../store/database';
import {
  SETTINGS_FILE_NAME,
  openConfFile,
  settingsFile,
  settingsFileOptions,
  settingsPath,
  type SettingsFile,
} from '../store/tables/settings';
import { safeStorageSecretKeeper } from './secrets';
import type { ShellDeps } from './types';

export function openAppSettings(
  deps: Pick<ShellDeps, 'openPreferences' | 'now' | 'warn'>,
  dataDir: string,
  store: Store,
): SettingsFile {
  return settingsFile(
    openConfFile(
      () =>
        deps.openPreferences<Settings>({ ...settingsFileOptions(dataDir, store), name: SETTINGS_FILE_NAME }),
      settingsPath(dataDir),
      deps.now,
      (movedTo) => deps.warn(`The settings file was not valid: moved to ${movedTo}; using the defaults.`),
    ),
  );
}

export async function runAppEngine(
  deps: Pick<ShellDeps, 'now' | 'warn' | 'safeStorage' | 'env' | 'platform'>,
  options: {
    store: Store;
    dataDir: string;
    settings: SettingsFile;
    announce: (announcement: Announcement) => void;
    desktop?: () => DesktopStatus;
  },
): Promise<RunningEngine> {
  const engineOptions: EngineOptions = {
    purpose: 'app',
    store: options.store,
    dataDir: options.dataDir,
    settings: options.settings,
    now: deps.now,
    secrets: safeStorageSecretKeeper(deps.safeStorage, deps.env, deps.platform),
    demoWhenNoSources: true,
    version: APP_VERSION,
    announce: options.announce,
    desktop: options.desktop,
  };
  try {
    return await runEngine(engineOptions);
  } catch (error) {
    // The window and the alerts matter more than the API's usual port: scripts find it in runtime.json.
    if (!(error instanceof PortInUseError)) throw error;
    deps.warn(
      `The local API's port ${options.settings.read().api.port} is in use: it listens on a free port instead (runtime.json names it).`,
    );
    return await runEngine({ ...engineOptions, port: 0 });
  }
}
