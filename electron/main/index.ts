/**
 * Entry of the desktop app: hands Electron's real modules to the composition root (desktopApp.ts),
 * which is tested against typed fakes. The compiler checks here that the real modules fit those types.
 */
import { join } from 'node:path';
import {
  BrowserWindow,
  Menu,
  Notification,
  Tray,
  app,
  globalShortcut,
  ipcMain,
  safeStorage,
  screen,
  shell,
} from 'electron';
import ElectronStore from 'electron-store';
import { Store } from '../store/database';
import { DataDirLockDamagedError, DataDirLockedError } from '../store/instance/lock';
import { startDesktopApp } from './desktopApp';
import type { ShellDeps } from './types';

const deps: ShellDeps = {
  app,
  createWindow: (options) => new BrowserWindow(options),
  createTray: (iconPath) => {
    const tray = new Tray(iconPath);
    return {
      setImage: (path) => tray.setImage(path),
      setToolTip: (text) => tray.setToolTip(text),
      setMenu: (template) => tray.setContextMenu(Menu.buildFromTemplate(template)),
      on: (event, listener) => void tray.on(event, listener),
      destroy: () => tray.destroy(),
    };
  },
  createNotification: (options) => new Notification(options),
  notificationsSupported: () => Notification.isSupported(),
  globalShortcut,
  ipcMain,
  shell,
  safeStorage,
  get screen() {
    // Only usable once the app is ready: read when the window is made.
    return screen;
  },
  platform: process.platform,
  env: process.env,
  now: () => new Date(),
  files: {
    preload: join(import.meta.dirname, '../preload/index.cjs'),
    rendererPage: join(import.meta.dirname, '../renderer/index.html'),
    rendererDevUrl: process.env.ELECTRON_RENDERER_URL,
    // `resources/` beside `out/`, in the project and in the packaged app alike.
    resources: join(app.getAppPath(), 'resources'),
  },
  openPreferences: (options) => new ElectronStore(options),
  openDatabase: (options) => Store.open(options),
  warn: (message) => console.warn(message),
};

startDesktopApp(deps).catch((error: unknown) => {
  const message =
    error instanceof DataDirLockedError || error instanceof DataDirLockDamagedError
      ? error.message
      : String(error);
  console.error(`Dataset Health could not start: ${message}`);
  app.exit(1);
});
