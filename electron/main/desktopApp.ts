/**
 * The desktop app's composition root: one instance per user; the engine (store, sync, local API,
 * alerts) on the data directory; the secure window; the tray; a notification per announcement; the
 * RPC over IPC. Closing the window hides it to the tray (unless the user turned that off); quitting
 * stops the sync, persists the store, removes runtime.json and releases the data directory.
 */
import { join } from 'node:path';
import { targetPath, type WindowTarget } from '../../shared/routes';
import { APP_VERSION } from '../../shared/version';
import { DATA_DIR_ENV } from '../store/dataDir';
import { Store } from '../store/database';
import { acquireDataDirLock } from '../store/lock';
import { removeRuntimeFile, writeRuntimeFile } from '../store/runtimeFile';
import {
  SETTINGS_FILE_NAME,
  openConfFile,
  settingsFile,
  settingsFileOptions,
  settingsPath,
  type SettingsFile,
} from '../store/settings';
import type { Settings } from '../../shared/settings';
import { type EngineOptions, type RunningEngine, runEngine } from '../engine/runEngine';
import { PortInUseError } from '../api/server';
import { NotificationPresenter } from './notifications';
import { registerRpcIpc } from './rpcIpc';
import { safeStorageSecretStore } from './secrets';
import { type PauseChoice, TrayController } from './tray';
import type { ShellDeps, ShellWindow } from './types';
import { migrateLegacyConfig } from './legacyConfig';
import { createMainWindow, stateOf } from './window';
import { openWindowState } from './windowState';

const PAUSE_MS: Record<Exclude<PauseChoice, 'forever'>, number> = { '1h': 3_600_000, '8h': 8 * 3_600_000 };
/** Moves and resizes are saved once they settle. */
const SAVE_STATE_MS = 500;

export interface DesktopApp {
  engine: RunningEngine;
  store: Store;
  settings: SettingsFile;
  tray: TrayController;
  notifications: NotificationPresenter;
  /** The window (made again if it was closed). */
  window(): ShellWindow;
  /** Brings the window forward at a place. */
  open(target?: WindowTarget): void;
  /** Resolves when quitting has stopped everything and persisted the store. */
  stopped: Promise<void>;
}

/**
 * Starts the app; resolves undefined when another instance runs (it is told to come forward, and this
 * one quits).
 */
export async function startDesktopApp(deps: ShellDeps): Promise<DesktopApp | undefined> {
  const { app } = deps;
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return undefined;
  }
  // A second launch before this one is ready has nothing to show yet.
  const started: { app?: DesktopApp } = {};
  app.on('second-instance', () => started.app?.open());
  await app.whenReady();

  // The same data directory the CLI uses: $DATASET_HEALTH_DATA_DIR, else the app's user-data folder.
  const dataDir = deps.env[DATA_DIR_ENV] || app.getPath('userData');
  const lock = acquireDataDirLock(dataDir, { purpose: 'app' });
  const store = await Store.open({ dataDir });
  const legacy = migrateLegacyConfig(dataDir, deps.now);
  if (legacy)
    deps.warn(`The settings of 0.2.0 were carried over; its config.json moved to ${legacy.movedTo}.`);
  const settings = settingsFile(
    openConfFile(
      () => deps.openStore<Settings>({ ...settingsFileOptions(dataDir, store), name: SETTINGS_FILE_NAME }),
      settingsPath(dataDir),
      deps.now,
      (movedTo) => deps.warn(`The settings file was not valid: moved to ${movedTo}; using the defaults.`),
    ),
  );
  const windowState = openWindowState(deps, dataDir);
  const appIcon = deps.platform === 'darwin' ? undefined : join(deps.files.resources, 'icon.png');

  let quitting = false;
  let window: ShellWindow | undefined;
  let saveTimer: ReturnType<typeof setTimeout> | undefined;
  const saveWindowState = (shown: ShellWindow) => {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => {
      if (!shown.isDestroyed()) windowState.write(stateOf(shown));
    }, SAVE_STATE_MS);
  };
  const makeWindow = (path?: string): ShellWindow => {
    const made = createMainWindow({ deps, state: windowState.read(), icon: appIcon, path });
    for (const event of ['resized', 'moved', 'maximize', 'unmaximize'] as const)
      made.on(event, () => saveWindowState(made));
    made.on('close', (event) => {
      if (!made.isDestroyed()) windowState.write(stateOf(made));
      if (quitting || !settings.read().window.closeToTray) return;
      event.preventDefault();
      made.hide();
    });
    made.on('closed', () => {
      if (window === made) window = undefined;
    });
    return made;
  };

  const notifications = new NotificationPresenter(deps, (target) => open(target), appIcon);
  const engineOptions: EngineOptions = {
    purpose: 'app',
    store,
    dataDir,
    settings,
    now: deps.now,
    secrets: safeStorageSecretStore(deps.safeStorage, deps.env, deps.platform),
    demoWhenNoSources: true,
    version: APP_VERSION,
    announce: (announcement) => notifications.show(announcement),
  };
  let engine: RunningEngine;
  try {
    engine = await runEngine(engineOptions);
  } catch (error) {
    // The window and the alerts matter more than the API's usual port: scripts find it in runtime.json.
    if (!(error instanceof PortInUseError)) throw error;
    deps.warn(
      `The local API's port ${settings.read().api.port} is in use: it listens on a free port instead (runtime.json names it).`,
    );
    engine = await runEngine({ ...engineOptions, port: 0 });
  }
  writeRuntimeFile(dataDir, {
    apiUrl: engine.api.url,
    pid: process.pid,
    startedAt: deps.now().toISOString(),
  });
  const unregister = registerRpcIpc({
    ipcMain: deps.ipcMain,
    dispatch: engine.rpc.dispatch,
    events: engine.rpc.events,
    windows: () => (window && !window.isDestroyed() ? [window] : []),
  });

  function open(target?: WindowTarget): void {
    const path = target ? targetPath(target) : undefined;
    if (!window || window.isDestroyed()) {
      window = makeWindow(path);
      return;
    }
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
    if (path) engine.rpc.events.emit('app.navigate', { path });
  }

  const pause = async (until: string | null) => {
    const next = settings.read();
    next.notifications.pausedUntil = until;
    await engine.rpc.dispatch('settings.save', next);
  };
  const tray = new TrayController(deps, {
    open,
    syncNow: () => void engine.sync.syncNow().catch(() => undefined),
    pause: (choice) =>
      void pause(
        choice === 'forever' ? 'forever' : new Date(deps.now().getTime() + PAUSE_MS[choice]).toISOString(),
      ),
    resume: () => void pause(null),
    quit: () => app.quit(),
  });
  engine.alerts.onTrayState((state) => tray.update(state));
  if (engine.alerts.trayState) tray.update(engine.alerts.trayState);

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let shutdown: Promise<void> | undefined;
  app.on('before-quit', (event) => {
    quitting = true;
    if (shutdown) return;
    // Quitting waits for the engine: a sync commit in progress rolls back, the store is saved.
    event.preventDefault();
    shutdown = (async () => {
      clearTimeout(saveTimer);
      unregister();
      await engine.stop();
      removeRuntimeFile(dataDir);
      await store.close();
      lock.release();
      tray.destroy();
    })().finally(() => {
      resolveStopped();
      app.quit();
    });
  });
  app.on('window-all-closed', () => {
    // With close-to-tray off, closing the window is quitting.
    if (!settings.read().window.closeToTray) app.quit();
  });
  app.on('activate', () => open());

  window = makeWindow();
  started.app = {
    engine,
    store,
    settings,
    tray,
    notifications,
    window: () => window ?? makeWindow(),
    open,
    stopped,
  };
  return started.app;
}
