/**
 * The app's window in Chromium: the real desktop shell (startDesktopApp over the typed Electron fake)
 * with the built renderer loaded from file:// as the app loads it, and the preload's bridge replaced by
 * one that takes the same path: each call goes to the shell's IPC handler as from its window, and what
 * the shell sends to its window reaches the page's listeners.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CHANNEL_PREFIX } from '../../../electron/preload/channels';
import type { RpcCall } from '../../../shared/rpc';
import { type FakeElectron, invokeFromWindow } from '../../helpers/electronFake';

const ROOT = join(import.meta.dirname, '../../..');
const EVENT_PREFIX = `${CHANNEL_PREFIX}event:`;

/** What the preload exposes (electron/preload/bridge.ts), over the test's two functions. */
const BRIDGE = `
  const listeners = new Map();
  window.__dhEvent = (name, payload) => listeners.get(name)?.forEach((listener) => listener(payload));
  window.datasetHealth = {
    invoke: (name, request) => window.__dhInvoke(name, request),
    on: (name, listener) => {
      const set = listeners.get(name) ?? new Set();
      listeners.set(name, set);
      set.add(listener);
      return () => set.delete(listener);
    },
  };
`;

export interface AppWindowPage {
  page: Page;
  /** Console errors and uncaught page errors so far. */
  errors: string[];
}

/** Shows the shell's window (it must exist) in a new page of `browser`, launched with file access. */
export async function openAppWindow(browser: Browser, fake: FakeElectron): Promise<AppWindowPage> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.exposeFunction('__dhInvoke', (name: RpcCall, request: unknown) =>
    invokeFromWindow(fake, name, request),
  );
  await page.addInitScript({ content: BRIDGE });
  fake.windows[0]!.webContents.onSend = (channel, payload) => {
    if (!channel.startsWith(EVENT_PREFIX)) return;
    const name = channel.slice(EVENT_PREFIX.length);
    void page
      .evaluate(`window.__dhEvent(${JSON.stringify(name)}, ${JSON.stringify(payload)})`)
      .catch(() => undefined);
  };
  await page.goto(`file://${join(ROOT, 'out/renderer/index.html')}`);
  return { page, errors };
}
