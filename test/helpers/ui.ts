/**
 * The window in a real browser: `serve --ui` as a real process on port 0 over imported demo data, and
 * Debian's Chromium driven by playwright-core. Collects console errors and page errors, so every test
 * can check there were none, and saves screenshots under test-output/screenshots.
 *
 * The data is made at UI_NOW, so `serve` and the pages run on a test clock that reads UI_NOW when the
 * server starts and moves on with the wall clock (testClock.ts): what the window shows "now" — the last
 * 7 days, the next 6 hours, a handoff since 8 h ago — is the same on any date the suite runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generateDemoSnapshot } from '../../electron/demo/generate';
import type { Snapshot } from '../../shared/schemas';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from './chromium';
import { cli, removeTempDirs, tempDir } from './cli';
import { type Spawned, killChildren, spawnCli, waitFor } from './process';
import { type TestClock, installClock, testClock } from './testClock';

export const UI_NOW = new Date('2026-11-21T04:41:00.000Z');
export const UI_ORG = 'acme';
export const SCREENSHOTS = fileURLToPath(new URL('../../test-output/screenshots', import.meta.url));

export interface UiServer {
  /** The printed Web UI link, with its one-time token. */
  link: string;
  base: string;
  dataDir: string;
  snapshot: Snapshot;
  serve: Spawned;
  /**
   * The clock `serve` runs on, and the pages `openUi` opens; absent: the real one (for data made
   * relative to the run's own now).
   */
  clock?: TestClock;
}

/** `serve --ui` on port 0 over `dataDir`, on `clock`: its printed link and the process. */
export async function serveUi(
  dataDir: string,
  clock: TestClock,
  env: NodeJS.ProcessEnv = {},
): Promise<Pick<UiServer, 'link' | 'base' | 'serve' | 'clock'>> {
  const serve = spawnCli(['serve', '--ui', '--port', '0', '--data-dir', dataDir], env, clock);
  const [, link] = await waitFor(serve.stdout, /Web UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\n/, serve);
  return { link: link!, base: new URL(link!).origin, serve, clock };
}

/** What a suite changes in its data before `serve` starts. */
export interface UiData {
  /** Changes the demo snapshot before it is imported (a long name, say). */
  edit?: (snapshot: Snapshot) => void;
  /** Writes to the data directory after the import (timeline entries, say), closing what it opens. */
  prepare?: (dataDir: string, snapshot: Snapshot) => Promise<void>;
}

/**
 * Imports `datasets` demo datasets made at UI_NOW into org acme of a fresh data dir and starts
 * `serve --ui` on it, on a clock reading UI_NOW (or `at`) from then on, the data changed first as asked.
 */
export async function startUiServer(
  datasets = 300,
  at: Date = UI_NOW,
  { edit, prepare }: UiData = {},
): Promise<UiServer> {
  const dataDir = tempDir('dh-ui-');
  const snapshot = generateDemoSnapshot({ datasets, seed: 11, now: UI_NOW, orgId: UI_ORG });
  edit?.(snapshot);
  const file = join(dataDir, 'snapshot.json');
  writeFileSync(file, JSON.stringify(snapshot));
  const imported = await cli(['import', '--org', UI_ORG, file, '--data-dir', dataDir]);
  if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`);
  await prepare?.(dataDir, snapshot);
  return { ...(await serveUi(dataDir, testClock(at))), dataDir, snapshot };
}

export interface UiPage {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors so far. */
  errors: string[];
}

/**
 * A signed-in page (the token exchanged for the cookie) in the given colour scheme. The printed token
 * works once per server: for a second page, pass `signedIn` (a page already signed in) and the new
 * page's context gets its session cookie instead.
 */
export async function openUi(
  browser: Browser,
  server: UiServer,
  colorScheme: 'light' | 'dark' = 'light',
  signedIn?: UiPage,
): Promise<UiPage> {
  const context = await browser.newContext({ colorScheme, viewport: { width: 1400, height: 900 } });
  if (server.clock) await installClock(context, server.clock);
  if (signedIn) await context.addCookies(await signedIn.context.cookies(server.base));
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(signedIn ? server.base : server.link);
  return { context, page, errors };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

export interface UiSuite {
  server: UiServer;
  browser: Browser;
  /** A signed-in page in the light scheme, and (when asked for) one in the dark scheme. */
  light: UiPage;
  dark: UiPage;
}

/**
 * Registers the suite's setup and cleanup: `serve --ui` over `datasets` imported datasets (changed by
 * `edit` and `prepare` first), Chromium, and signed-in pages (the printed token works once: the dark page reuses the
 * light page's session cookie). The returned object is filled in before the first test runs.
 */
export function uiSuite(datasets: number, options: { dark?: boolean } & UiData = {}): UiSuite {
  const suite = {} as UiSuite;
  beforeAll(async () => {
    [suite.server, suite.browser] = await Promise.all([
      startUiServer(datasets, UI_NOW, options),
      launchChromium(),
    ]);
    suite.light = await openUi(suite.browser, suite.server, 'light');
    if (options.dark) suite.dark = await openUi(suite.browser, suite.server, 'dark', suite.light);
  }, 120_000);
  afterAll(async () => {
    await suite.browser?.close();
    killChildren();
    removeTempDirs();
  });
  return suite;
}
