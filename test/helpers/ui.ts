/**
 * The window in a real browser: `serve --ui` as a real process on port 0 over imported demo data, and
 * Debian's Chromium driven by playwright-core. Collects console errors and page errors, so every test
 * can check there were none, and saves screenshots under test-output/screenshots.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { generateDemoSnapshot } from '../../electron/demo/generate';
import type { Snapshot } from '../../shared/schemas';
import { cli, tempDir } from './cli';
import { type Spawned, spawnCli, waitFor } from './process';

export const UI_NOW = new Date('2026-11-21T04:41:00.000Z');
export const UI_ORG = 'acme';
export const SCREENSHOTS = fileURLToPath(new URL('../../test-output/screenshots', import.meta.url));

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS, headless: true });
}

export interface UiServer {
  /** The printed Web UI link, with its one-time token. */
  link: string;
  base: string;
  dataDir: string;
  snapshot: Snapshot;
  serve: Spawned;
}

/** Imports `datasets` demo datasets into org acme of a fresh data dir and starts `serve --ui` on it. */
export async function startUiServer(datasets = 300): Promise<UiServer> {
  const dataDir = tempDir('dh-ui-');
  const snapshot = generateDemoSnapshot({ datasets, seed: 11, now: UI_NOW, orgId: UI_ORG });
  const file = join(dataDir, 'snapshot.json');
  writeFileSync(file, JSON.stringify(snapshot));
  const imported = await cli(['import', '--org', UI_ORG, file, '--data-dir', dataDir]);
  if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`);
  const serve = spawnCli(['serve', '--ui', '--port', '0', '--data-dir', dataDir]);
  const [, link] = await waitFor(serve.stdout, /Web UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\n/, serve);
  return { link: link!, base: new URL(link!).origin, dataDir, snapshot, serve };
}

export interface UiPage {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors so far. */
  errors: string[];
}

/** A signed-in page (the token exchanged for the cookie) in the given colour scheme. */
export async function openUi(
  browser: Browser,
  server: UiServer,
  colorScheme: 'light' | 'dark' = 'light',
): Promise<UiPage> {
  const context = await browser.newContext({ colorScheme, viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(server.link);
  return { context, page, errors };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}
