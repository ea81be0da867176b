/**
 * Overdue (unverified) in Chromium (docs/architecture.md#deadlines) against `serve --ui`: demo data imported as of
 * UI_NOW, with a source whose last successful sync was then and whose remote cannot be reached now —
 * `serve` and the pages run on a clock two days later (whatever today's date), so the data has been stale
 * for two days and the deadlines since are overdue. The datasets list marks those rows beside (never
 * instead of) the remote's status, with the count and since in the tooltip; the chips gain the
 * informational "Overdue (unverified) N"; Triage names them; axe-core finds no serious violation in light
 * or dark. Screenshot: datasets-overdue-light.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSnapshot } from '../../../electron/demo/generate';
import { Store } from '../../../electron/store/database';
import { saveSource } from '../../../electron/store/tables/sources';
import { recordSyncRun } from '../../../electron/store/tables/syncRuns';
import { EMPTY_COUNTS } from '../../../shared/sync';
import { expectAccessible } from '../../helpers/axe';
import { launchChromium } from '../../helpers/chromium';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { killChildren } from '../../helpers/process';
import { testClock } from '../../helpers/testClock';
import { UI_NOW, UI_ORG, type UiPage, type UiServer, openUi, screenshot, serveUi } from '../../helpers/ui';

const DAY_MS = 86_400_000;

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000 });

let server: UiServer;
let browser: Browser;
let light: UiPage;

beforeAll(async () => {
  const dataDir = tempDir('dh-ui-overdue-');
  const snapshot = generateDemoSnapshot({ datasets: 60, seed: 11, now: UI_NOW, orgId: UI_ORG });
  const file = join(dataDir, 'snapshot.json');
  writeFileSync(file, JSON.stringify(snapshot));
  const imported = await cli(['import', '--org', UI_ORG, file, '--data-dir', dataDir]);
  if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`);
  // A source last synced at UI_NOW, its remote a closed loopback port: stale ever since.
  const store = await Store.open({ dataDir });
  saveSource(store, { id: 'acme-remote', orgId: UI_ORG, baseUrl: 'http://127.0.0.1:9' }, UI_NOW);
  recordSyncRun(store, {
    sourceId: 'acme-remote',
    orgId: UI_ORG,
    kind: 'crawl',
    startedAt: UI_NOW,
    endedAt: UI_NOW,
    outcome: 'ok',
    counts: EMPTY_COUNTS,
  });
  await store.close();
  server = {
    ...(await serveUi(dataDir, testClock(new Date(UI_NOW.getTime() + 2 * DAY_MS)))),
    dataDir,
    snapshot,
  };
  browser = await launchChromium();
  light = await openUi(browser, server, 'light');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  killChildren();
  removeTempDirs();
});

/** The window's landing (Triage while anything is FAILED) redirects once: after it, a view stays put. */
const landed = (page: UiPage['page']) => poll(() => page.url()).toMatch(/#\/orgs\/[^/]+\/triage/);

describe('overdue (unverified) in the window', { timeout: 90_000 }, () => {
  it('marks the rows beside their status, adds the chip, names them in Triage, and stays axe-clean', async () => {
    const { page } = light;
    await landed(page);
    await page.goto(`${server.base}/#/orgs/${UI_ORG}/datasets`);
    const chip = page.locator('[data-chip="OVERDUE"]');
    await poll(() => chip.count()).toBe(1);
    const datasets = Number((await chip.locator('.count').textContent())!.replace(/,/g, ''));
    expect(datasets).toBeGreaterThan(0);
    expect(await chip.textContent()).toMatch(/^\s*Overdue \(unverified\)\s*[\d,]+\s*$/);
    expect(await chip.getAttribute('title')).toMatch(
      new RegExp(`^[\\d,]+ deadlines? passed since the last sync \\(${datasets} datasets?\\)`),
    );

    // Rows: the mark sits in the status cell beside the remote's status, which is still there.
    const marks = page.locator('tr[data-dataset-id] .overdue');
    await poll(() => marks.count()).toBeGreaterThan(0);
    const cells = await page.locator('tr[data-dataset-id]').evaluateAll((rows) =>
      rows
        .map((row) => ({
          id: row.getAttribute('data-dataset-id')!,
          status: row.querySelector('[data-status]')?.getAttribute('data-status') ?? null,
          mark: row.querySelector('.overdue'),
        }))
        .filter((row) => row.mark !== null)
        .map((row) => ({
          id: row.id,
          status: row.status,
          sameCell: row.mark!.closest('td') === row.mark!.parentElement!.closest('td'),
          text: row.mark!.firstChild?.textContent,
          title: row.mark!.getAttribute('title'),
          deadlines: Number(row.mark!.getAttribute('data-overdue')),
        })),
    );
    const statuses = new Map(server.snapshot.datasets.map((r) => [r.datasetId, r.latestDeliveryStatus]));
    for (const cell of cells) {
      expect(cell.status).toBe(statuses.get(cell.id) ?? 'NONE');
      expect(cell.text).toBe('Overdue (unverified)');
      expect(cell.deadlines).toBeGreaterThan(0);
      expect(cell.title).toMatch(
        new RegExp(
          `^${cell.deadlines.toLocaleString('en-US')} deadlines? passed since the last sync, the first at .+`,
        ),
      );
    }
    await screenshot(page, 'datasets-overdue-light');
    await expectAccessible(page, 'datasets with overdue marks, light');

    // Triage names them, with the way to the list.
    await page.goto(`${server.base}/#/orgs/${UI_ORG}/triage`);
    const notice = page.locator('[data-overdue-notice]');
    await poll(() => notice.count()).toBe(1);
    expect(await notice.textContent()).toMatch(
      /Overdue \(unverified\): [\d,]+ deadlines? passed since the last sync/,
    );
    expect(await notice.locator('li').count()).toBe(Math.min(datasets, 5));
    await expectAccessible(page, 'triage with the overdue notice, light');

    // Dark: the same marks stay readable.
    const dark = await openUi(browser, server, 'dark', light);
    await landed(dark.page);
    await dark.page.goto(`${server.base}/#/orgs/${UI_ORG}/datasets`);
    await poll(() => dark.page.locator('tr[data-dataset-id] .overdue').count()).toBeGreaterThan(0);
    await expectAccessible(dark.page, 'datasets with overdue marks, dark');
    await dark.context.close();
    expect(light.errors).toEqual([]);
  });
});
