/**
 * A recording fake of the `electron` module itself: the one thing tests replace. Everything else (the
 * app's code, electron-store, sql.js, Fastify) is real.
 * - In vitest, `electron` resolves to this file (vitest.config.ts), so electron-store's `app` and
 *   `ipcMain` are these while the in-process shell tests hand desktopApp their typed fakes.
 * - The whole-app test (test/e2e/app) compiles it with esbuild and runs the built `out/main/index.js`
 *   under Node with a module hook mapping `electron` here. With `FAKE_ELECTRON_RECORD=<file>`, every
 *   call is appended to that file as one JSON line, the test's commands arrive over the IPC channel
 *   (click a notification, move the window, quit...) and their answers are records too.
 *
 * Each part `satisfies` (or implements) the Electron types the app and electron-store use, so the fake
 * cannot drift from the real API.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type {
  App,
  BrowserWindowConstructorOptions,
  GlobalShortcut,
  IpcMain,
  IpcMainInvokeEvent,
  Menu as ElectronMenu,
  MenuItemConstructorOptions,
  NativeImage,
  NotificationConstructorOptions,
  Rectangle,
  SafeStorage,
  Shell,
  Tray as ElectronTray,
} from 'electron';
import type {
  PreventableEvent,
  ShellApp,
  ShellDeps,
  ShellNotification,
  ShellWebContents,
  ShellWindow,
} from '../../electron/main/types';

/** One thing the app did, as the test reads it. */
export interface FakeRecord {
  seq: number;
  /** Milliseconds since the process started. */
  t: number;
  type: string;
  [key: string]: unknown;
}

/** A command from the test; its answer is recorded as `{ type: 'reply', id, result | error }`. */
export interface FakeCommand {
  id: number;
  command: string;
  [key: string]: unknown;
}

const RECORD_FILE = process.env.FAKE_ELECTRON_RECORD;
/** Records of this process (in vitest: the only place they go). */
export const records: FakeRecord[] = [];
let seq = 0;

function record(type: string, data: Record<string, unknown> = {}): void {
  const entry: FakeRecord = { seq: ++seq, t: Math.round(performance.now()), type, ...data };
  records.push(entry);
  if (RECORD_FILE) appendFileSync(RECORD_FILE, `${JSON.stringify(entry)}\n`);
}

type Listener = (...args: never[]) => unknown;

class Listeners {
  private readonly map = new Map<string, Listener[]>();
  add(event: string, listener: Listener, once = false): void {
    const wrapped: Listener = once
      ? (...args) => {
          this.remove(event, wrapped);
          return listener(...args);
        }
      : listener;
    this.map.set(event, [...(this.map.get(event) ?? []), wrapped]);
  }
  remove(event: string, listener: Listener): void {
    this.map.set(
      event,
      (this.map.get(event) ?? []).filter((l) => l !== listener),
    );
  }
  names(): string[] {
    return [...this.map.keys()].filter((name) => (this.map.get(name) ?? []).length > 0);
  }
  /** Calls the listeners with a preventable event first; returns whether one prevented it. */
  fire(event: string, ...args: unknown[]): boolean {
    let prevented = false;
    const preventable: PreventableEvent = { preventDefault: () => (prevented = true) };
    for (const listener of [...(this.map.get(event) ?? [])])
      (listener as (...a: unknown[]) => unknown)(preventable, ...args);
    return prevented;
  }
  /** Calls the listeners with these arguments only. */
  call(event: string, ...args: unknown[]): void {
    for (const listener of [...(this.map.get(event) ?? [])])
      (listener as (...a: unknown[]) => unknown)(...args);
  }
}

/** Where Electron would say the app is: the folder of the package.json above the main script. */
function appPath(): string {
  if (process.env.FAKE_ELECTRON_APP_PATH) return process.env.FAKE_ELECTRON_APP_PATH;
  let dir = dirname(process.argv[1] ?? join(process.cwd(), 'index.js'));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

function exitProcess(code: number): void {
  record('process.exit', { code });
  // In vitest the fake only records: the test runner is not ours to end.
  if (RECORD_FILE) process.exit(code);
}

// ---------------------------------------------------------------------------------------------- app

const appEvents = new Listeners();
let ready = false;
let quitting = false;
let openAtLogin = false;

export const app = {
  requestSingleInstanceLock() {
    record('app.requestSingleInstanceLock');
    return process.env.FAKE_ELECTRON_SINGLE_INSTANCE !== 'taken';
  },
  whenReady() {
    record('app.whenReady');
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        ready = true;
        resolve();
      }),
    );
  },
  isReady: () => ready,
  getPath(name: Parameters<App['getPath']>[0]) {
    return join(process.env.FAKE_ELECTRON_USER_DATA ?? join(tmpdir(), 'fake-electron'), name);
  },
  getAppPath: () => appPath(),
  setLoginItemSettings(settings: Parameters<App['setLoginItemSettings']>[0]) {
    record('app.setLoginItemSettings', { settings });
    if (settings.openAtLogin !== undefined) openAtLogin = settings.openAtLogin;
  },
  getLoginItemSettings() {
    return { openAtLogin };
  },
  getVersion(): string {
    const { version } = JSON.parse(readFileSync(join(appPath(), 'package.json'), 'utf8')) as {
      version: string;
    };
    return version;
  },
  getName: () => 'Dataset Health',
  on(event: string, listener: Listener): void {
    record('app.on', { event });
    appEvents.add(event, listener);
  },
  /** As Electron: before-quit (preventable), the windows close (each may refuse), will-quit, exit. */
  quit() {
    record('app.quit');
    if (quitting) return;
    if (appEvents.fire('before-quit')) {
      record('app.quit.prevented');
      return;
    }
    quitting = true;
    for (const window of windows.filter((w) => !w.isDestroyed()))
      if (!window.close()) {
        quitting = false;
        record('app.quit.prevented', { by: 'window' });
        return;
      }
    if (appEvents.fire('will-quit')) {
      quitting = false;
      return;
    }
    appEvents.fire('quit', 0);
    exitProcess(0);
  },
  exit(code = 0) {
    record('app.exit', { code });
    exitProcess(code);
  },
} satisfies ShellApp & Pick<App, 'isReady' | 'getVersion' | 'getName'>;

// ---------------------------------------------------------------------------------------- windows

let nextContentsId = 1;

class FakeWebContents implements ShellWebContents {
  readonly id = nextContentsId++;
  readonly events = new Listeners();
  openHandler: Parameters<ShellWebContents['setWindowOpenHandler']>[0] | undefined;
  permissionRequest: Parameters<ShellWebContents['session']['setPermissionRequestHandler']>[0] = null;
  permissionCheck: Parameters<ShellWebContents['session']['setPermissionCheckHandler']>[0] = null;
  readonly session = {
    setPermissionRequestHandler: (handler: FakeWebContents['permissionRequest']) => {
      record('session.setPermissionRequestHandler', { contents: this.id, set: handler !== null });
      this.permissionRequest = handler;
    },
    setPermissionCheckHandler: (handler: FakeWebContents['permissionCheck']) => {
      record('session.setPermissionCheckHandler', { contents: this.id, set: handler !== null });
      this.permissionCheck = handler;
    },
  } satisfies ShellWebContents['session'];
  constructor(private readonly window: FakeBrowserWindow) {}
  send(channel: string, ...args: unknown[]): void {
    record('webContents.send', { contents: this.id, channel, args });
  }
  setWindowOpenHandler(handler: NonNullable<FakeWebContents['openHandler']>): void {
    record('webContents.setWindowOpenHandler', { contents: this.id });
    this.openHandler = handler;
  }
  isDestroyed(): boolean {
    return this.window.isDestroyed();
  }
  on(event: string, listener: Listener): this {
    record('webContents.on', { contents: this.id, event });
    this.events.add(event, listener);
    return this;
  }
}

const windows: FakeBrowserWindow[] = [];

export class FakeBrowserWindow implements ShellWindow {
  readonly id: number;
  readonly webContents: FakeWebContents;
  readonly events = new Listeners();
  private visible = false;
  private minimized = false;
  private maximized = false;
  private destroyed = false;
  private bounds: Rectangle;
  constructor(options: BrowserWindowConstructorOptions = {}) {
    windows.push(this);
    this.id = windows.length;
    this.webContents = new FakeWebContents(this);
    // Electron centres a window given no position; the fake puts it at a fixed place.
    this.bounds = {
      x: options.x ?? 100,
      y: options.y ?? 80,
      width: options.width ?? 800,
      height: options.height ?? 600,
    };
    record('BrowserWindow.new', { window: this.id, contents: this.webContents.id, options });
  }
  show(): void {
    record('window.show', { window: this.id });
    this.visible = true;
    this.minimized = false;
  }
  hide(): void {
    record('window.hide', { window: this.id });
    this.visible = false;
  }
  focus(): void {
    record('window.focus', { window: this.id });
  }
  restore(): void {
    record('window.restore', { window: this.id });
    this.minimized = false;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  isVisible(): boolean {
    return this.visible;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  isMaximized(): boolean {
    return this.maximized;
  }
  maximize(): void {
    record('window.maximize', { window: this.id });
    this.maximized = true;
  }
  getNormalBounds(): Rectangle {
    return { ...this.bounds };
  }
  async loadURL(url: string): Promise<void> {
    record('window.loadURL', { window: this.id, url });
    setImmediate(() => this.events.call('ready-to-show'));
  }
  async loadFile(file: string, options?: { hash?: string }): Promise<void> {
    record('window.loadFile', { window: this.id, file, hash: options?.hash ?? null });
    setImmediate(() => this.events.call('ready-to-show'));
  }
  on(event: string, listener: Listener): this {
    record('window.on', { window: this.id, event });
    this.events.add(event, listener);
    return this;
  }
  once(event: string, listener: Listener): this {
    record('window.once', { window: this.id, event });
    this.events.add(event, listener, true);
    return this;
  }
  /** The user (or quitting) closes it: returns whether it closed (a listener may keep it). */
  close(): boolean {
    const kept = this.events.fire('close');
    record('window.close', { window: this.id, kept });
    if (kept) return false;
    this.destroyed = true;
    this.events.call('closed');
    if (!quitting && windows.every((w) => w.isDestroyed())) appEvents.call('window-all-closed');
    return true;
  }
  /** The user moves or resizes it. */
  setBoundsByUser(bounds: Rectangle): void {
    this.bounds = { ...bounds };
    this.events.call('moved');
    this.events.call('resized');
  }
}

// ------------------------------------------------------------------------------- tray and menus

interface MenuItemView {
  label?: string;
  type?: string;
  enabled?: boolean;
  submenu?: MenuItemView[];
}

export class FakeMenu {
  constructor(readonly template: MenuItemConstructorOptions[]) {}
  view(items = this.template): MenuItemView[] {
    return items.map((item) => ({
      label: item.label,
      type: item.type,
      enabled: item.enabled,
      submenu: Array.isArray(item.submenu)
        ? this.view(item.submenu as MenuItemConstructorOptions[])
        : undefined,
    }));
  }
  find(label: string, items = this.template): MenuItemConstructorOptions | undefined {
    for (const item of items) {
      if (item.label === label) return item;
      const inside = Array.isArray(item.submenu)
        ? this.find(label, item.submenu as MenuItemConstructorOptions[])
        : undefined;
      if (inside) return inside;
    }
    return undefined;
  }
}

export const Menu = {
  buildFromTemplate(template: MenuItemConstructorOptions[]): FakeMenu {
    return new FakeMenu(template);
  },
} satisfies { buildFromTemplate(template: MenuItemConstructorOptions[]): unknown };

const trays: FakeTray[] = [];

export class FakeTray implements Pick<
  ElectronTray,
  'setImage' | 'setToolTip' | 'setContextMenu' | 'destroy'
> {
  readonly id: number;
  readonly events = new Listeners();
  menu: FakeMenu | null = null;
  constructor(image: NativeImage | string) {
    trays.push(this);
    this.id = trays.length;
    record('Tray.new', { tray: this.id, image: imagePath(image) });
  }
  setImage(image: NativeImage | string): void {
    record('tray.setImage', { tray: this.id, image: imagePath(image) });
  }
  setToolTip(toolTip: string): void {
    record('tray.setToolTip', { tray: this.id, toolTip });
  }
  setContextMenu(menu: ElectronMenu | null): void {
    // Menus here come from the fake Menu.buildFromTemplate.
    this.menu = menu instanceof FakeMenu ? menu : null;
    record('tray.setContextMenu', { tray: this.id, menu: this.menu?.view() ?? null });
  }
  on(event: 'click', listener: () => void): this {
    record('tray.on', { tray: this.id, event });
    this.events.add(event, listener);
    return this;
  }
  destroy(): void {
    record('tray.destroy', { tray: this.id });
  }
}

const imagePath = (image: NativeImage | string): string =>
  typeof image === 'string' ? image : '<NativeImage>';

// --------------------------------------------------------------------------------- notifications

const notifications: FakeNotification[] = [];

export class FakeNotification implements ShellNotification {
  readonly id: number;
  readonly events = new Listeners();
  static isSupported(): boolean {
    return true;
  }
  constructor(options: NotificationConstructorOptions = {}) {
    notifications.push(this);
    this.id = notifications.length;
    record('Notification.new', { notification: this.id, options });
  }
  show(): void {
    record('notification.show', { notification: this.id });
  }
  close(): void {
    record('notification.close', { notification: this.id });
    this.events.call('close');
  }
  on(event: 'click' | 'close', listener: () => void): this {
    this.events.add(event, listener);
    return this;
  }
}

// -------------------------------------------------------------------------------- global shortcuts

const shortcuts = new Map<string, () => void>();

export const globalShortcut = {
  register(accelerator: string, callback: () => void): boolean {
    record('globalShortcut.register', { accelerator });
    if (shortcuts.has(accelerator)) return false;
    shortcuts.set(accelerator, callback);
    return true;
  },
  unregister(accelerator: string): void {
    record('globalShortcut.unregister', { accelerator });
    shortcuts.delete(accelerator);
  },
} satisfies Pick<GlobalShortcut, 'register' | 'unregister'>;

// ------------------------------------------------------------------------ ipc, storage, screen, shell

/** `on` as electron-store uses it (Electron's returns the whole IpcMain, for chaining). */
interface IpcMainOn {
  on(channel: string, listener: Parameters<IpcMain['on']>[1]): unknown;
}

class FakeIpcMain implements Pick<IpcMain, 'handle' | 'removeHandler'>, IpcMainOn {
  readonly events = new Listeners();
  readonly handlers = new Map<string, (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown>();
  handle(channel: string, listener: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown): void {
    record('ipcMain.handle', { channel });
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    record('ipcMain.removeHandler', { channel });
    this.handlers.delete(channel);
  }
  on(channel: string, listener: Parameters<IpcMain['on']>[1]): this {
    record('ipcMain.on', { channel });
    this.events.add(channel, listener);
    return this;
  }
}
export const ipcMain = new FakeIpcMain();

/** Reversible, but never the plain text (as the OS keychain would). */
export const safeStorage = {
  isEncryptionAvailable: () => true,
  encryptString: (plain: string) => Buffer.from(`sealed:${Buffer.from(plain).toString('hex')}`),
  decryptString: (sealed: Buffer) => {
    const text = sealed.toString();
    if (!text.startsWith('sealed:')) throw new Error('cannot decrypt');
    return Buffer.from(text.slice('sealed:'.length), 'hex').toString();
  },
  getSelectedStorageBackend: () => 'gnome_libsecret' as const,
} satisfies Pick<
  SafeStorage,
  'isEncryptionAvailable' | 'encryptString' | 'decryptString' | 'getSelectedStorageBackend'
>;

export const screen = {
  getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
} satisfies ShellDeps['screen'];

export const shell = {
  async openExternal(url: string) {
    record('shell.openExternal', { url });
  },
  async openPath(path: string) {
    record('shell.openPath', { path });
    return '';
  },
} satisfies Pick<Shell, 'openExternal' | 'openPath'>;

// ------------------------------------------------------------------------------ the test's commands

function lastWindow(): FakeBrowserWindow {
  const window = windows.at(-1);
  if (!window) throw new Error('no window');
  return window;
}

/** What a page could try in order to leave the app, and what the app answered. */
function probeWindow(page: string) {
  const contents = lastWindow().webContents;
  const opened = ['https://example.com/runbook', 'http://example.com/', 'file:///etc/passwd'].map(
    (url) => contents.openHandler?.({ url } as never) ?? null,
  );
  const navigate = (event: string, url: string) => contents.events.fire(event, url);
  const permission = new Promise<boolean>((resolve) =>
    contents.permissionRequest
      ? contents.permissionRequest(undefined as never, 'media', resolve, undefined as never)
      : resolve(true),
  );
  return permission.then((mediaGranted) => ({
    opened,
    navigateAwayPrevented: navigate('will-navigate', 'https://evil.example/'),
    redirectAwayPrevented: navigate('will-redirect', 'http://127.0.0.1:1/'),
    ownPagePrevented: navigate('will-navigate', `${page}#/settings`),
    webviewPrevented: contents.events.fire('will-attach-webview'),
    mediaGranted,
    notificationsChecked: contents.permissionCheck?.(null, 'notifications', '', undefined as never) ?? true,
  }));
}

const commands: Record<string, (command: FakeCommand) => unknown> = {
  'notification.click': ({ index }) => notifications[index as number]!.events.call('click'),
  'tray.click': ({ label }) => {
    const item = trays.at(-1)?.menu?.find(label as string);
    if (!item?.click) throw new Error(`no tray menu item '${String(label)}'`);
    (item.click as () => void)();
  },
  'window.setBounds': ({ bounds }) => lastWindow().setBoundsByUser(bounds as Rectangle),
  'window.close': () => lastWindow().close(),
  'window.probe': ({ page }) => probeWindow(page as string),
  'ipc.invoke': ({ channel, args }) => {
    const handler = ipcMain.handlers.get(channel as string);
    if (!handler) throw new Error(`no handler for ${String(channel)}`);
    const event = { sender: lastWindow().webContents, senderFrame: null } as unknown as IpcMainInvokeEvent;
    return handler(event, ...((args as unknown[]) ?? []));
  },
  'globalShortcut.press': ({ accelerator }) => {
    const callback = shortcuts.get(accelerator as string);
    if (!callback) throw new Error(`${String(accelerator)} is not registered`);
    callback();
  },
  'app.secondInstance': () => appEvents.call('second-instance', {}, [], process.cwd()),
  'app.quit': () => app.quit(),
  listeners: () => ({ app: appEvents.names(), window: lastWindow().events.names() }),
  /** What keeps the process alive (for a failure's message). */
  'process.resources': () => process.getActiveResourcesInfo(),
};

if (RECORD_FILE && process.send) {
  process.on('message', (message: FakeCommand) => {
    const run = commands[message.command];
    Promise.resolve()
      .then(() => {
        if (!run) throw new Error(`unknown command ${message.command}`);
        return run(message);
      })
      .then(
        (result) => record('reply', { id: message.id, result: result ?? null }),
        (error: unknown) => record('reply', { id: message.id, error: String(error) }),
      );
  });
}

// The app imports named parts; electron-store imports the default.
export { FakeBrowserWindow as BrowserWindow, FakeNotification as Notification, FakeTray as Tray };
export default {
  app,
  BrowserWindow: FakeBrowserWindow,
  Menu,
  Notification: FakeNotification,
  Tray: FakeTray,
  globalShortcut,
  ipcMain,
  safeStorage,
  screen,
  shell,
};
