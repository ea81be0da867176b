/**
 * The app window, secure by construction (docs/architecture.md#security): isolated, sandboxed, no Node; navigation,
 * new windows, webviews and permission requests refused; `https:` links opened in the browser instead.
 * Its size and position are remembered between runs.
 */
import type { BrowserWindowConstructorOptions, WebPreferences } from 'electron';
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Rectangle, ShellDeps, ShellWebContents, ShellWindow } from './types';

export const SECURE_WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  experimentalFeatures: false,
  webviewTag: false,
  navigateOnDragDrop: false,
  safeDialogs: true,
  // Middle-click opens links without the new-window handler seeing them in some versions.
  disableBlinkFeatures: 'Auxclick',
} as const satisfies WebPreferences;

/** The remembered window (`<dataDir>/window-state.json`); a file of another shape is never used. */
export const WindowState = Type.Object({
  bounds: Type.Object({
    x: Type.Optional(Type.Number()),
    y: Type.Optional(Type.Number()),
    width: Type.Number({ minimum: 1 }),
    height: Type.Number({ minimum: 1 }),
  }),
  maximized: Type.Boolean(),
});
export type WindowState = Static<typeof WindowState>;
const checkWindowState = Compile(WindowState);
export const isWindowState = (value: unknown): value is WindowState => checkWindowState.Check(value);

export const DEFAULT_WINDOW_STATE: WindowState = { bounds: { width: 1280, height: 800 }, maximized: false };
const MIN_SIZE = { width: 720, height: 480 };

/** A remembered position is used only when it is still on a screen (a monitor may be gone). */
export function visibleState(state: WindowState, displays: { workArea: Rectangle }[]): WindowState {
  const { x, y, width, height } = state.bounds;
  if (x === undefined || y === undefined) return state;
  const onScreen = displays.some(
    ({ workArea: area }) =>
      x + 40 > area.x && y + 20 > area.y && x < area.x + area.width - 40 && y < area.y + area.height - 20,
  );
  return onScreen ? state : { ...state, bounds: { width, height } };
}

export function windowOptions(
  preload: string,
  state: WindowState,
  icon: string | undefined,
): BrowserWindowConstructorOptions {
  return {
    ...state.bounds,
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    show: false,
    title: 'Dataset Health',
    icon,
    webPreferences: { ...SECURE_WEB_PREFERENCES, preload },
  };
}

/**
 * Refuses everything a page could use to leave the app: `isOwnPage` tells the app's own page (a reload
 * of it is allowed), anything else is refused; an `https:` link opens in the user's browser.
 */
export function guardWebContents(
  contents: ShellWebContents,
  openExternal: (url: string) => void,
  isOwnPage: (url: string) => boolean,
): void {
  const external = (url: string): void => {
    if (/^https:\/\//i.test(url)) openExternal(url);
  };
  contents.setWindowOpenHandler(({ url }) => {
    external(url);
    return { action: 'deny' };
  });
  for (const event of ['will-navigate', 'will-redirect'] as const)
    contents.on(event, (navigation, url) => {
      if (isOwnPage(url)) return;
      navigation.preventDefault();
      external(url);
    });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  contents.session.setPermissionCheckHandler(() => false);
}

/** The page's address without its hash: any other is not ours. */
const pageOf = (url: string): string => url.split('#')[0]!;

export interface MainWindowOptions {
  deps: Pick<ShellDeps, 'createWindow' | 'shell' | 'files' | 'screen'>;
  state: WindowState;
  icon: string | undefined;
  /** The route to open at (hash path), e.g. from a notification clicked while no window existed. */
  path?: string;
}

export function createMainWindow({ deps, state, icon, path }: MainWindowOptions): ShellWindow {
  const shown = visibleState(state, deps.screen.getAllDisplays());
  const window = deps.createWindow(windowOptions(deps.files.preload, shown, icon));
  if (shown.maximized) window.maximize();
  const devUrl = deps.files.rendererDevUrl;
  const page = devUrl ?? new URL(`file://${deps.files.rendererPage}`).href;
  guardWebContents(
    window.webContents,
    (url) => void deps.shell.openExternal(url),
    (url) => pageOf(url) === pageOf(page),
  );
  window.once('ready-to-show', () => window.show());
  if (devUrl) void window.loadURL(path ? `${devUrl}#${path}` : devUrl);
  else void window.loadFile(deps.files.rendererPage, path ? { hash: path } : undefined);
  return window;
}

/** The window's state to remember: its normal (not maximized) bounds and whether it is maximized. */
export function stateOf(window: ShellWindow): WindowState {
  const { x, y, width, height } = window.getNormalBounds();
  return { bounds: { x, y, width, height }, maximized: window.isMaximized() };
}
