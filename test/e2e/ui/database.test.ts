/**
 * What the window shows about its database (issue 12), in Chromium:
 * - the app's window (the real desktop shell, the built page from file://) while a data directory takes
 *   long to open: "Opening the database…" with where and how much, then the datasets;
 * - the web UI of a running engine (`serve --ui`, in-process) while the disk refuses its writes: one
 *   calm banner for as long as it lasts (no toasts), gone when writing works again.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSnapshot } from '../../../electron/demo/generate';
import { startDesktopApp } from '../../../electron/main/desktopApp';
import { bytesToOpen } from '../../../electron/main/startup';
import { Store } from '../../../electron/store/database';
import { openHeadlessSettings } from '../../../electron/store/tables/settings';
import { bytesText } from '../../../shared/database';
import { launchChromium } from '../../helpers/chromium';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { fakeElectron, slowDatabase } from '../../helpers/electronFake';
import { fill, fillableDisk } from '../../helpers/fullDisk';
import { startInstance, stopInstances } from '../../helpers/instance';
import { UI_NOW, UI_ORG, screenshot } from '../../helpers/ui';
import { openAppWindow } from './appWindow';

const ROOT = join(import.meta.dirname, '../../..');
/** The browser and the engine share the machine with other tests: not just 1 s. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000 });

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium(['--allow-file-access-from-files']);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stopInstances();
  removeTempDirs();
});

/** The window's first view with data: Triage's causes (the imported demo has FAILED datasets). */
const LANDED = 'section[data-cause-id]';

/** A data directory with org acme imported (200 datasets), its local API set to a free port. */
async function importedDataDir(): Promise<string> {
  const dataDir = tempDir('dh-ui-database-');
  const file = join(dataDir, 'snapshot.json');
  writeFileSync(
    file,
    JSON.stringify(generateDemoSnapshot({ datasets: 200, seed: 5, now: UI_NOW, orgId: UI_ORG })),
  );
  const imported = await cli(['import', '--org', UI_ORG, file, '--data-dir', dataDir]);
  if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`);
  const store = await Store.open({ dataDir });
  const settingsFile = openHeadlessSettings(dataDir, store, () => new Date());
  const settings = settingsFile.read();
  settings.api.port = 0;
  settingsFile.write(settings);
  await store.close();
  return dataDir;
}

describe('the app window while its data directory opens', () => {
  it('says it is opening the database, where and how much, then shows the datasets', async () => {
    const dataDir = await importedDataDir();
    const bytes = bytesToOpen(dataDir);
    const fake = fakeElectron({ dataDir, root: ROOT, now: () => new Date() });
    const database = slowDatabase(fake);
    const starting = startDesktopApp(fake.deps);
    await database.opening;
    const { page, errors } = await openAppWindow(browser, fake);

    const heading = page.getByRole('heading', { name: 'Opening the database…' });
    await poll(() => heading.isVisible()).toBe(true);
    expect(await page.locator('[data-opening-detail]').innerText()).toBe(
      `Reading ${bytesText(bytes)} from ${dataDir}.`,
    );
    expect(bytes).toBeGreaterThan(100_000);
    // No frame yet: nothing to click that would wait on the database.
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    await screenshot(page, 'opening-database');

    database.release();
    const desktop = (await starting)!;
    await poll(() => page.locator(LANDED).count()).toBeGreaterThan(0);
    expect(await heading.count()).toBe(0);
    expect(errors).toEqual([]);
    fake.app.quit();
    await desktop.stopped;
  }, 60_000);
});

describe('the window while the disk refuses the database’s writes', () => {
  it('shows one calm banner while it lasts, keeps working, and drops the banner once writes work', async () => {
    const dataDir = await importedDataDir();
    const disk = fillableDisk();
    const instance = await startInstance(dataDir, {
      now: () => new Date(),
      ui: true,
      openJournal: disk.openJournal,
    });
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(instance.engine.uiUrl!);
    await poll(() => page.locator(LANDED).count()).toBeGreaterThan(0);
    const banner = page.locator('[data-write-problem]');
    expect(await banner.count()).toBe(0);

    await fill(disk, instance.store);
    await instance.engine.rpc.dispatch('keys.create', { orgId: UI_ORG, name: 'made while full' });
    await expect(instance.store.flush()).rejects.toThrow(/ENOSPC/);
    await poll(() => banner.count()).toBe(1);
    const text = await banner.innerText();
    expect(text).toContain('Changes are not being saved to disk');
    expect(text).toContain(`Could not write to ${dataDir} (ENOSPC: no space left on device`);
    expect(text).toMatch(/[\d,]+ bytes of committed changes are kept in memory/);
    expect(text).toContain('Writing is tried again every few seconds');
    // Calm: a banner, not toasts; the data is still there.
    expect(await page.locator('.n-message').count()).toBe(0);
    expect(await page.locator(LANDED).count()).toBeGreaterThan(0);
    await screenshot(page, 'write-problem');

    disk.full = false;
    await instance.store.flush();
    await poll(() => banner.count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
