/** Debian's Chromium driven by playwright-core, as the tests and the renderer benchmark launch it. */
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `extraArgs`: e.g. `--allow-file-access-from-files` to load the built page from file:// as the app does. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [...CHROMIUM_FLAGS, ...extraArgs],
    headless: true,
  });
}
