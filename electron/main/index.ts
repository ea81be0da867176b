/**
 * Composition root of the desktop app (the shell: the only code that imports electron). It wires the
 * engine — store, sync, local API — to a secure window; with no source configured the engine mirrors
 * the built-in demo (a simulated remote in-process). Tray, notifications and safeStorage-sealed remote
 * keys arrive with the shell issue; until then remote keys come from the environment, as for `serve`.
 */
import { APP_VERSION } from '../../shared/version';
import { join } from 'node:path';
import { BrowserWindow, app, ipcMain, shell } from 'electron';
import { DATA_DIR_ENV } from '../store/dataDir';
import { acquireDataDirLock, DataDirLockedError } from '../store/lock';
import { Store } from '../store/database';
import { removeRuntimeFile, writeRuntimeFile } from '../store/runtimeFile';
import { type RunningEngine, runEngine } from '../sync/runEngine';
import { envSecretStore } from '../sync/secrets';
import { registerRpcIpc } from './rpcIpc';
import ElectronStore from 'electron-store';
import type { Settings } from '../../shared/settings';
import { openSettingsBackend, settingsFile, settingsFileOptions } from '../store/settings';

let engine: RunningEngine | undefined;
let store: Store | undefined;

function createWindow(): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 800,
    show: false,
    title: 'Dataset Health',
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  window.once('ready-to-show', () => window.show());
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https:')) void shell.openExternal(url);
    return { action: 'deny' };
  });
  window.webContents.on('will-navigate', (event) => event.preventDefault());
  window.webContents.session.setPermissionRequestHandler((_contents, _permission, callback) =>
    callback(false),
  );
  if (process.env.ELECTRON_RENDERER_URL) void window.loadURL(process.env.ELECTRON_RENDERER_URL);
  else void window.loadFile(join(import.meta.dirname, '../renderer/index.html'));
  return window;
}

async function start(): Promise<void> {
  // The same data directory the CLI uses: $DATASET_HEALTH_DATA_DIR, else the app's user-data folder.
  const dataDir = process.env[DATA_DIR_ENV] || app.getPath('userData');
  const lock = acquireDataDirLock(dataDir, { purpose: 'app' });
  app.on('will-quit', () => lock.release());
  store = await Store.open({ dataDir });
  const settingsStore = store;
  engine = await runEngine({
    store,
    dataDir,
    settings: settingsFile(
      openSettingsBackend(
        () => new ElectronStore<Settings>(settingsFileOptions(dataDir, settingsStore)),
        dataDir,
        () => new Date(),
      ),
    ),
    now: () => new Date(),
    secrets: envSecretStore(process.env),
    demoWhenNoSources: true,
    version: APP_VERSION,
  });
  writeRuntimeFile(dataDir, {
    apiUrl: engine.api.url,
    pid: process.pid,
    startedAt: new Date().toISOString(),
  });
  registerRpcIpc({
    ipcMain,
    dispatch: engine.rpc.dispatch,
    events: engine.rpc.events,
    windows: () => BrowserWindow.getAllWindows(),
  });
  createWindow();
}

if (!app.requestSingleInstanceLock()) app.quit();
app.on('second-instance', () => BrowserWindow.getAllWindows()[0]?.focus());
app.on('window-all-closed', () => app.quit());
app.on('before-quit', (event) => {
  if (!store) return;
  event.preventDefault();
  const closing = store;
  store = undefined;
  void (async () => {
    await engine?.stop();
    removeRuntimeFile(process.env[DATA_DIR_ENV] || app.getPath('userData'));
    await closing.close();
    app.quit();
  })();
});
void app.whenReady().then(() =>
  start().catch((error: unknown) => {
    const message = error instanceof DataDirLockedError ? error.message : String(error);
    console.error(`Dataset Health could not start: ${message}`);
    app.exit(1);
  }),
);
