/**
 * The desktop app's composition root: one instance per user; the window and the tray at once; then the
 * engine (store, sync, local API, alerts) on the data directory, which may take seconds to open (the
 * window says so meanwhile, startup.ts); a notification per announcement; the RPC over IPC; the desktop
 * habits (a global shortcut, opening at login: habits.ts) following the settings. Closing the
 * window hides it to the tray (unless the user turned that off); quitting stops the sync, persists the
 * store, removes runtime.json and releases the data directory.
 */
import { join } from 'node:path';
import { targetPath, type WindowTarget } from '../../shared/routes';
import { DEFAULT_SETTINGS, soundsOf } from '../../shared/settings';
import { databaseStatus } from '../rpc/database';
import { DATA_DIR_ENV } from '../store/instance/dataDir';
import type { Store } from '../store/database';
import { acquireDataDirLock } from '../store/instance/lock';
import type { SettingsFile } from '../store/tables/settings';
import type { RunningEngine } from '../engine/runEngine';
import { openAppSettings, runAppEngine } from './appEngine';
import { DesktopHabits, heardSettings } from './habits';
import { NotificationPresenter } from './notifications';
import { registerRpcIpc } from './rpcIpc';
import { EngineStartup } from './startup';
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
  habits: DesktopHabits;
  /** The window (made again if it was closed). */
  window(): ShellWindow;
  /** Brings the window forward at a place. */
  open(target?: WindowTarget): void;
  /** Resolves when quitting has stopped everything and persisted the store. */
  stopped: Promise<void>;
}

/** What starting opened: the store, and (unless quitting began first) the settings and the engine. */
interface Started {
  store: Store;
  running?: { settings: SettingsFile; engine: RunningEngine };
}

/**
 * Starts the app; resolves once the engine runs (the window and the tray exist well before), or
 * undefined when another instance runs (it is told to come forward, and this one quits) or the user
 * quit before the engine ran.
 */
export async function startDesktopApp(deps: ShellDeps): Promise<DesktopApp | undefined> {
  const { app } = deps;
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return undefined;
  }
  // A second launch before the window exists has nothing to show yet.
  const shown: { open?: (target?: WindowTarget) => void } = {};
  app.on('second-instance', () => shown.open?.());
  await app.whenReady();

  // The same data directory the CLI uses: $DATASET_HEALTH_DATA_DIR, else the app's user-data folder.
  const dataDir = deps.env[DATA_DIR_ENV] || app.getPath('userData');
  const lock = acquireDataDirLock(dataDir, { purpose: 'app' });
  const legacy = migrateLegacyConfig(dataDir, deps.now);
  if (legacy)
    deps.warn(`The settings of 0.2.0 were carried over; its config.json moved to ${legacy.movedTo}.`);
  const windowState = openWindowState(deps, dataDir);
  const appIcon = deps.platform === 'darwin' ? undefined : join(deps.files.resources, 'icon.png');
  const startup = new EngineStartup(dataDir, deps.now);
  // Set once the database is open; until then closing behaves as by default.
  let running: Started['running'];
  const closeToTray = (): boolean => (running?.settings.read() ?? DEFAULT_SETTINGS).window.closeToTray;

  let quitting = false;
  let window: ShellWindow | undefined;
  let saveTimer: ReturnType<typeof setTimeout> | undefined;
  const saveWindowState = (made: ShellWindow) => {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => {
      if (!made.isDestroyed()) windowState.write(stateOf(made));
    }, SAVE_STATE_MS);
  };
  const makeWindow = (path?: string): ShellWindow => {
    const made = createMainWindow({ deps, state: windowState.read(), icon: appIcon, path });
    for (const event of ['resized', 'moved', 'maximize', 'unmaximize'] as const)
      made.on(event, () => saveWindowState(made));
    made.on('close', (event) => {
      if (!made.isDestroyed()) windowState.write(stateOf(made));
      if (quitting || !closeToTray()) return;
      event.preventDefault();
      made.hide();
    });
    made.on('closed', () => {
      if (window === made) window = undefined;
    });
    return made;
  };
  function open(target?: WindowTarget): void {
    const path = target ? targetPath(target) : undefined;
    if (!window || window.isDestroyed()) {
      window = makeWindow(path);
      return;
    }
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
    if (path) startup.events.emit('app.navigate', { path });
  }

  const unregister = registerRpcIpc({
    ipcMain: deps.ipcMain,
    dispatch: startup.dispatch,
    events: startup.events,
    windows: () => (window && !window.isDestroyed() ? [window] : []),
  });
  const pause = async (until: string | null) => {
    if (!running) return;
    const next = running.settings.read();
    next.notifications.pausedUntil = until;
    await running.engine.rpc.dispatch('settings.save', next);
  };
  // Its menu offers Sync now and Pause only once the engine runs (the alerts' first state).
  const tray = new TrayController(deps, {
    open,
    syncNow: () => void running?.engine.sync.syncNow().catch(() => undefined),
    pause: (choice) =>
      void pause(
        choice === 'forever' ? 'forever' : new Date(deps.now().getTime() + PAUSE_MS[choice]).toISOString(),
      ),
    resume: () => void pause(null),
    quit: () => app.quit(),
  });
  const notifications = new NotificationPresenter(
    deps,
    (target) => open(target),
    appIcon,
    () => soundsOf(running?.settings.read() ?? DEFAULT_SETTINGS),
  );
  // The global shortcut opens Triage of the org the tray follows (home before the first sync).
  const habits = new DesktopHabits(deps, () => {
    const orgId = running?.engine.alerts.trayState?.orgId ?? null;
    open(orgId === null ? undefined : { view: 'triage', orgId });
  });
  window = makeWindow();
  shown.open = open;

  // Only now the database: the window and the tray are up while it opens.
  const starting = (async (): Promise<Started> => {
    const store = await deps.openDatabase({ dataDir });
    if (quitting) return { store };
    const settings = heardSettings(openAppSettings(deps, dataDir, store), (before, after) =>
      habits.changed(before.desktop, after.desktop),
    );
    habits.start(settings.read().desktop);
    const engine = await runAppEngine(deps, {
      store,
      dataDir,
      settings,
      announce: (announcement) => notifications.show(announcement),
      desktop: () => habits.status(),
    });
    running = { settings, engine };
    return { store, running };
  })();

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let shutdown: Promise<void> | undefined;
  app.on('before-quit', (event) => {
    quitting = true;
    if (shutdown) return;
    // Quitting waits for the engine (and for the database, if it is still opening): a sync commit in
    // progress rolls back, the store is saved.
    event.preventDefault();
    shutdown = (async () => {
      clearTimeout(saveTimer);
      const started = await starting.catch(() => undefined);
      unregister();
      habits.stop();
      // Stopping the engine removes runtime.json and control.json.
      if (started?.running) await started.running.engine.stop();
      await started?.store.close().catch((error: unknown) => {
        // The last chance to write what waits in memory: say what could not be saved, and quit anyway.
        const refused = databaseStatus(started.store, dataDir).writeProblem;
        deps.warn(
          refused
            ? `Quit with ${refused.pendingBytes.toLocaleString('en-US')} bytes of committed changes unsaved: the disk still refuses writes to ${dataDir}.`
            : `Could not save the database at quit: ${String(error)}`,
        );
      });
      lock.release();
      tray.destroy();
    })().finally(() => {
      resolveStopped();
      app.quit();
    });
  });
  app.on('window-all-closed', () => {
    // With close-to-tray off, closing the window is quitting.
    if (!closeToTray()) app.quit();
  });
  app.on('activate', () => open());

  const { store } = await starting;
  if (!running || quitting) return undefined;
  const { engine, settings } = running;
  startup.started(engine.rpc, databaseStatus(store, dataDir));
  engine.alerts.onTrayState((state) => tray.update(state));
  if (engine.alerts.trayState) tray.update(engine.alerts.trayState);
  return {
    engine,
    store,
    settings,
    tray,
    notifications,
    habits,
    window: () => window ?? makeWindow(),
    open,
    stopped,
  };
}
