/**
 * The parts of Electron the shell uses, narrowed to what it calls. Plain methods are Electron's own
 * types (Pick); event subscriptions are narrowed to the events used, because Electron's overloads
 * cannot be implemented by a test fake. `index.ts` hands in the real modules, so the compiler checks
 * them against these types; tests hand in typed fakes.
 */
import type Conf from 'conf';
import type { Store, StoreOptions } from '../store/database';
import type { Options as ElectronStoreOptions } from 'electron-store';
import type {
  App,
  BrowserWindow,
  BrowserWindowConstructorOptions,
  GlobalShortcut,
  IpcMain,
  LoginItemSettings,
  MenuItemConstructorOptions,
  Notification,
  NotificationConstructorOptions,
  Rectangle,
  SafeStorage,
  Session,
  Shell,
  Tray,
  WebContents,
} from 'electron';

export interface PreventableEvent {
  preventDefault(): void;
}

export type ShellSession = Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>;

export interface ShellWebContents extends Pick<
  WebContents,
  'id' | 'send' | 'setWindowOpenHandler' | 'isDestroyed'
> {
  session: ShellSession;
  on(
    event: 'will-navigate' | 'will-redirect',
    listener: (event: PreventableEvent, url: string) => void,
  ): unknown;
  on(event: 'will-attach-webview', listener: (event: PreventableEvent) => void): unknown;
}

export interface ShellWindow extends Pick<
  BrowserWindow,
  | 'show'
  | 'hide'
  | 'focus'
  | 'restore'
  | 'isMinimized'
  | 'isVisible'
  | 'isDestroyed'
  | 'isMaximized'
  | 'maximize'
  | 'getNormalBounds'
  | 'loadURL'
  | 'loadFile'
> {
  webContents: ShellWebContents;
  on(event: 'close', listener: (event: PreventableEvent) => void): unknown;
  on(event: 'closed' | 'resized' | 'moved' | 'maximize' | 'unmaximize', listener: () => void): unknown;
  once(event: 'ready-to-show', listener: () => void): unknown;
}

/** The tray, as index.ts adapts Electron's: menus are given as templates (Electron builds them). */
export interface ShellTray extends Pick<Tray, 'setToolTip' | 'destroy'> {
  /** An icon file: Electron treats names ending in `Template` as macOS template images. */
  setImage(path: string): void;
  setMenu(template: MenuItemConstructorOptions[]): void;
  on(event: 'click', listener: () => void): void;
}

export interface ShellNotification extends Pick<Notification, 'show' | 'close'> {
  on(event: 'click' | 'close', listener: () => void): unknown;
}

export interface ShellApp extends Pick<
  App,
  | 'requestSingleInstanceLock'
  | 'quit'
  | 'exit'
  | 'whenReady'
  | 'getPath'
  | 'getAppPath'
  | 'setLoginItemSettings'
> {
  /** Read back without options: `status` is macOS 13's and later's only. */
  getLoginItemSettings(): Pick<LoginItemSettings, 'openAtLogin'> & Partial<Pick<LoginItemSettings, 'status'>>;
  on(event: 'second-instance' | 'window-all-closed' | 'activate', listener: () => void): unknown;
  on(event: 'before-quit', listener: (event: PreventableEvent) => void): unknown;
}

export type ShellGlobalShortcut = Pick<GlobalShortcut, 'register' | 'unregister'>;

/** Everything the desktop app needs from Electron, and the few facts of where it runs. */
export interface ShellDeps {
  app: ShellApp;
  createWindow(options: BrowserWindowConstructorOptions): ShellWindow;
  createTray(iconPath: string): ShellTray;
  createNotification(options: NotificationConstructorOptions): ShellNotification;
  notificationsSupported(): boolean;
  globalShortcut: ShellGlobalShortcut;
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>;
  shell: Pick<Shell, 'openExternal'>;
  safeStorage: Pick<SafeStorage, 'isEncryptionAvailable' | 'encryptString' | 'decryptString'> &
    Partial<Pick<SafeStorage, 'getSelectedStorageBackend'>>;
  screen: { getAllDisplays(): { workArea: Rectangle }[] };
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  now(): Date;
  /** The built files: preload, renderer page, icons. */
  files: { preload: string; rendererPage: string; rendererDevUrl?: string; resources: string };
  /**
   * electron-store (a `conf` subclass) over the given options: its own options type, so the file is
   * named by `name` (`conf`'s `configName` would be ignored) and the version is the app's.
   */
  openPreferences<T extends Record<string, unknown>>(options: ElectronStoreOptions<T>): Conf<T>;
  /** Opens the data directory's database (`Store.open`): seconds for a large one, so the window shows first. */
  openDatabase(options: StoreOptions): Promise<Store>;
  /** Something the user may want to know that does not stop the app (a file moved aside). */
  warn(message: string): void;
}

export type { Rectangle };
