/**
 * Typed fakes of the Electron modules the shell uses (electron/main/types.ts): each satisfies the same
 * types the real modules are checked against, records what the shell did, and lets a test fire the
 * events Electron would (a click, a second launch, a quit). Libraries are the real ones: `openPreferences` is
 * electron-store itself (vitest maps its `electron` import to test/helpers/fakeElectronModule.ts).
 */
import type {
  BrowserWindowConstructorOptions,
  IpcMainInvokeEvent,
  LoginItemSettings,
  Settings as LoginItemOptions,
  MenuItemConstructorOptions,
  NotificationConstructorOptions,
} from 'electron';
import ElectronStore from 'electron-store';
import { rpcCallChannel } from '../../electron/preload/channels';
import { Store } from '../../electron/store/database';
import type { RpcCall } from '../../shared/rpc';
import { join } from 'node:path';
import { FakeGlobalShortcut } from './fakeGlobalShortcut';
import type {
  PreventableEvent,
  ShellApp,
  ShellDeps,
  ShellNotification,
  ShellTray,
  ShellWebContents,
  ShellWindow,
} from '../../electron/main/types';

type Listener = (...args: never[]) => void;

class Events {
  readonly listeners = new Map<string, Listener[]>();
  add(event: string, listener: Listener): void {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
  }
  /** Fires the event; returns whether a listener called preventDefault. */
  fire(event: string, ...args: unknown[]): boolean {
    let prevented = false;
    const preventable: PreventableEvent = { preventDefault: () => (prevented = true) };
    for (const listener of this.listeners.get(event) ?? [])
      (listener as (...a: unknown[]) => void)(...(args.length > 0 ? args : [preventable]));
    return prevented;
  }
  /** Fires with a preventable event first, then the other arguments. */
  firePreventable(event: string, ...args: unknown[]): boolean {
    let prevented = false;
    const preventable: PreventableEvent = { preventDefault: () => (prevented = true) };
    for (const listener of this.listeners.get(event) ?? [])
      (listener as (...a: unknown[]) => void)(preventable, ...args);
    return prevented;
  }
}

export class FakeWebContents implements ShellWebContents {
  static next = 1;
  readonly id = FakeWebContents.next++;
  readonly events = new Events();
  readonly sent: { channel: string; payload: unknown }[] = [];
  openHandler: Parameters<ShellWebContents['setWindowOpenHandler']>[0] | undefined;
  permissionRequest: Parameters<ShellWebContents['session']['setPermissionRequestHandler']>[0] = null;
  permissionCheck: Parameters<ShellWebContents['session']['setPermissionCheckHandler']>[0] = null;
  readonly session = {
    setPermissionRequestHandler: (handler: FakeWebContents['permissionRequest']) =>
      void (this.permissionRequest = handler),
    setPermissionCheckHandler: (handler: FakeWebContents['permissionCheck']) =>
      void (this.permissionCheck = handler),
  } satisfies ShellWebContents['session'];
  /** Hears what is sent, as the page would (a test that shows the real renderer in Chromium). */
  onSend: ((channel: string, payload: unknown) => void) | undefined;
  send(channel: string, ...args: unknown[]): void {
    this.sent.push({ channel, payload: args[0] });
    this.onSend?.(channel, args[0]);
  }
  setWindowOpenHandler(handler: NonNullable<FakeWebContents['openHandler']>): void {
    this.openHandler = handler;
  }
  isDestroyed(): boolean {
    return false;
  }
  on(event: string, listener: Listener): this {
    this.events.add(event, listener);
    return this;
  }
}

export class FakeWindow implements ShellWindow {
  readonly webContents = new FakeWebContents();
  readonly events = new Events();
  visible = false;
  minimized = false;
  maximized = false;
  destroyed = false;
  focused = 0;
  loaded: { url?: string; file?: string; hash?: string } = {};
  bounds = { x: 100, y: 80, width: 1280, height: 800 };
  constructor(readonly options: BrowserWindowConstructorOptions) {
    if (options.width) this.bounds = { ...this.bounds, width: options.width, height: options.height ?? 800 };
  }
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  focus(): void {
    this.focused += 1;
  }
  restore(): void {
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
    this.maximized = true;
  }
  getNormalBounds() {
    return this.bounds;
  }
  async loadURL(url: string): Promise<void> {
    this.loaded = { url };
  }
  async loadFile(file: string, options?: { hash?: string }): Promise<void> {
    this.loaded = { file, hash: options?.hash };
  }
  on(event: string, listener: Listener): this {
    this.events.add(event, listener);
    return this;
  }
  once(event: string, listener: Listener): this {
    this.events.add(event, listener);
    return this;
  }
  /** The user closes it: returns whether the shell kept it (hid it) instead. */
  close(): boolean {
    const kept = this.events.fire('close');
    if (!kept) {
      this.destroyed = true;
      this.events.fire('closed');
    }
    return kept;
  }
}

export class FakeTray implements ShellTray {
  readonly events = new Events();
  image: string;
  tooltip = '';
  menu: MenuItemConstructorOptions[] = [];
  destroyed = false;
  constructor(iconPath: string) {
    this.image = iconPath;
  }
  setImage(path: string): void {
    this.image = path;
  }
  setToolTip(text: string): void {
    this.tooltip = text;
  }
  setMenu(template: MenuItemConstructorOptions[]): void {
    this.menu = template;
  }
  on(event: 'click', listener: () => void): void {
    this.events.add(event, listener);
  }
  destroy(): void {
    this.destroyed = true;
  }
  /** Clicks the menu item with this label (in submenus too). */
  click(label: string): void {
    const find = (items: MenuItemConstructorOptions[]): MenuItemConstructorOptions | undefined =>
      items
        .flatMap((item) => [item, ...(Array.isArray(item.submenu) ? item.submenu : [])])
        .find((i) => i.label === label);
    const item = find(this.menu);
    if (!item?.click)
      throw new Error(`no menu item '${label}' in ${JSON.stringify(this.menu.map((i) => i.label))}`);
    (item.click as () => void)();
  }
}

export class FakeNotification implements ShellNotification {
  readonly events = new Events();
  shown = false;
  closed = false;
  constructor(readonly options: NotificationConstructorOptions) {}
  show(): void {
    this.shown = true;
  }
  close(): void {
    this.closed = true;
    this.events.fire('close');
  }
  on(event: 'click' | 'close', listener: () => void): this {
    this.events.add(event, listener);
    return this;
  }
}

export class FakeApp implements ShellApp {
  readonly events = new Events();
  singleInstance = true;
  quitCalls = 0;
  /** Quit went through (nothing prevented before-quit). */
  quitted = false;
  exitCode: number | undefined;
  /** What the system's login items say of the app (`status`: macOS 13 and later). */
  loginItem: Pick<LoginItemSettings, 'openAtLogin'> & Partial<Pick<LoginItemSettings, 'status'>> = {
    openAtLogin: false,
  };
  readonly loginItemCalls: LoginItemOptions[] = [];
  constructor(
    private readonly userData: string,
    private readonly appPath: string,
  ) {}
  requestSingleInstanceLock(): boolean {
    return this.singleInstance;
  }
  quit(): void {
    this.quitCalls += 1;
    if (!this.events.fire('before-quit')) this.quitted = true;
  }
  exit(code?: number): void {
    this.exitCode = code ?? 0;
  }
  async whenReady(): Promise<void> {}
  getPath(): string {
    return this.userData;
  }
  getAppPath(): string {
    return this.appPath;
  }
  setLoginItemSettings(settings: LoginItemOptions): void {
    this.loginItemCalls.push(settings);
    if (settings.openAtLogin !== undefined)
      this.loginItem = { ...this.loginItem, openAtLogin: settings.openAtLogin };
  }
  getLoginItemSettings(): FakeApp['loginItem'] {
    return { ...this.loginItem };
  }
  on(event: string, listener: Listener): this {
    this.events.add(event, listener);
    return this;
  }
}

export interface FakeElectron {
  deps: ShellDeps;
  app: FakeApp;
  windows: FakeWindow[];
  trays: FakeTray[];
  notifications: FakeNotification[];
  globalShortcut: FakeGlobalShortcut;
  opened: string[];
  handled: Map<string, unknown>;
  warnings: string[];
}

/** A fake safeStorage: reversible, but never the plain text (as the OS keychain would). */
const fakeSafeStorage = {
  isEncryptionAvailable: () => true,
  encryptString: (plain: string) => Buffer.from(`sealed:${Buffer.from(plain).toString('hex')}`),
  decryptString: (sealed: Buffer) => {
    const text = sealed.toString();
    if (!text.startsWith('sealed:')) throw new Error('cannot decrypt');
    return Buffer.from(text.slice('sealed:'.length), 'hex').toString();
  },
  getSelectedStorageBackend: () => 'gnome_libsecret' as const,
} satisfies ShellDeps['safeStorage'];

export function fakeElectron(options: {
  dataDir: string;
  root: string;
  now: () => Date;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}): FakeElectron {
  const app = new FakeApp(options.dataDir, options.root);
  const fake: FakeElectron = {
    app,
    windows: [],
    trays: [],
    notifications: [],
    globalShortcut: new FakeGlobalShortcut(),
    opened: [],
    handled: new Map(),
    warnings: [],
    deps: undefined as never,
  };
  fake.deps = {
    app,
    createWindow: (windowOptions) => {
      const window = new FakeWindow(windowOptions);
      fake.windows.push(window);
      return window;
    },
    createTray: (iconPath) => {
      const tray = new FakeTray(iconPath);
      fake.trays.push(tray);
      return tray;
    },
    createNotification: (notificationOptions) => {
      const notification = new FakeNotification(notificationOptions);
      fake.notifications.push(notification);
      return notification;
    },
    notificationsSupported: () => true,
    globalShortcut: fake.globalShortcut,
    ipcMain: {
      handle: (channel, listener) => void fake.handled.set(channel, listener),
      removeHandler: (channel) => void fake.handled.delete(channel),
    },
    shell: {
      openExternal: async (url) => {
        fake.opened.push(url);
      },
    },
    safeStorage: fakeSafeStorage,
    screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
    platform: options.platform ?? 'linux',
    env: options.env ?? {},
    now: options.now,
    files: {
      preload: join(options.root, 'out/preload/index.cjs'),
      rendererPage: join(options.root, 'out/renderer/index.html'),
      resources: join(options.root, 'resources'),
    },
    // The real electron-store: in vitest its `electron` import is test/helpers/fakeElectronModule.ts.
    openPreferences: (storeOptions) => new ElectronStore(storeOptions),
    openDatabase: (storeOptions) => Store.open(storeOptions),
    warn: (message) => void fake.warnings.push(message),
  };
  return fake;
}

/** A call from the app's window, as its preload makes it over IPC: answers `{ result }` or `{ error }`. */
export function invokeFromWindow(
  fake: FakeElectron,
  name: RpcCall,
  request: unknown = null,
): Promise<unknown> {
  const handler = fake.handled.get(rpcCallChannel(name)) as (
    event: IpcMainInvokeEvent,
    request: unknown,
  ) => unknown;
  const event = { sender: { id: fake.windows[0]!.webContents.id } } as unknown as IpcMainInvokeEvent;
  return Promise.resolve(handler(event, request));
}

/**
 * A data directory that opens only when the test says so (a large one, without the wait): `opening`
 * resolves when the app has asked for it, and the real Store.open runs once released.
 */
export function slowDatabase(fake: FakeElectron): {
  opening: Promise<void>;
  release(): void;
  opened(): boolean;
} {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let asked!: () => void;
  const opening = new Promise<void>((resolve) => (asked = resolve));
  let opened = false;
  fake.deps.openDatabase = async (options) => {
    asked();
    await released;
    const store = await Store.open(options);
    opened = true;
    return store;
  };
  return { opening, release, opened: () => opened };
}
