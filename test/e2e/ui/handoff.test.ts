/**
 * The Handoff view in Chromium against `serve --ui` (docs/architecture.md#handoff; issue 14 point 5). The data
 * directory holds the scripted shift of test/helpers/handoffShift.ts (failures with causes, an
 * acknowledgement withdrawn and another with a note, a recovery, a snooze, an outage), plus a snooze in
 * force until the next delivery, an hourly dataset that is late more often than not (so a deadline of
 * the next 8 h is at risk whatever the time of day), and the shift's source configured with a remote
 * that refuses connections and a last successful sync at 13:59 (so the data is stale: deadlines since
 * then are overdue (unverified), and contact is lost again). The view is opened at the shift's start
 * (`?since=`, a fixed time: the server runs on the real clock). Sections and counts equal the
 * `handoff.get` answer the page received; the copied text equals shared/handoff.ts's Markdown of that
 * same answer; the chooser writes `since` to the URL; j/k/Enter; axe-core clean in light and dark;
 * screenshots to docs/handoff-light.png and docs/handoff-dark.png.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../../electron/store/database';
import { setSnooze } from '../../../electron/store/tables/snoozes';
import { recordSyncRun } from '../../../electron/store/tables/syncRuns';
import { type HandoffReport, atRiskByDataset } from '../../../shared/handoff';
import { handoffMarkdown } from '../../../shared/handoffMarkdown';
import { EMPTY_COUNTS } from '../../../shared/sync';
import { expectAccessible } from '../../helpers/axe';
import { launchChromium } from '../../helpers/chromium';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { SHIFT_ORG, SHIFT_SOURCE, SHIFT_START, playShift } from '../../helpers/handoffShift';
import { syncHistories } from '../../helpers/history';
import { killChildren, spawnCli, waitFor } from '../../helpers/process';
import { SCREENSHOTS, type UiPage, type UiServer, openUi, screenshot } from '../../helpers/ui';

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000 });
const DOCS = fileURLToPath(new URL('../../../docs', import.meta.url));
const SINCE = SHIFT_START.toISOString().replace('.000Z', 'Z');

/** Late on every hour of the last six: at risk by its on-time rate (0 of 6), a deadline every hour. */
const HOURLY = {
  id: 'ticks',
  name: 'Hourly Ticks',
  supplier: { id: 'SUP-3', name: 'Tick Works' },
  product: 'Ticks',
  cron: '0 * * * *',
  deliveries: [13, 12, 11, 10, 9, 8].map((hour) => {
    const deadline = `2026-11-26T${String(hour).padStart(2, '0')}:00:00.000Z`;
    return {
      deadline,
      deliveredAt: deadline.replace(':00:00.000Z', ':20:00.000Z'),
      status: 'DELIVERED_LATE',
    };
  }),
};

let server: UiServer;
let browser: Browser;
let light: UiPage;
let dark: UiPage;

async function prepareDataDir(): Promise<string> {
  const dataDir = tempDir('dh-ui-handoff-');
  const store = await Store.open({ dataDir, checkpoint: { openCheckpointDelayMs: 0 } });
  await playShift(store);
  await syncHistories(store, SHIFT_ORG, [HOURLY], new Date('2026-11-26T13:30:00.000Z'));
  setSnooze(store, SHIFT_ORG, 'fx-rates', 'next-delivery', new Date('2026-11-26T13:40:00.000Z'));
  recordSyncRun(store, {
    sourceId: SHIFT_SOURCE.id,
    orgId: SHIFT_ORG,
    kind: 'poll',
    startedAt: new Date('2026-11-26T13:59:00.000Z'),
    endedAt: new Date('2026-11-26T13:59:05.000Z'),
    outcome: 'ok',
    counts: EMPTY_COUNTS,
  });
  await store.close();
  // The shift's source, with a remote that refuses connections: the data stays stale.
  const added = await cli(
    [
      'sources',
      'add',
      '--org',
      SHIFT_ORG,
      '--id',
      SHIFT_SOURCE.id,
      '--name',
      SHIFT_SOURCE.name,
      '--remote',
      'http://127.0.0.1:9',
      '--data-dir',
      dataDir,
    ],
    { DATASET_HEALTH_REMOTE_KEY: 'unused-key' },
  );
  if (added.code !== 0) throw new Error(`sources add failed: ${added.stderr}`);
  return dataDir;
}

beforeAll(async () => {
  const [dataDir, launched] = await Promise.all([prepareDataDir(), launchChromium()]);
  browser = launched;
  const serve = spawnCli(['serve', '--ui', '--port', '0', '--data-dir', dataDir], {
    DATASET_HEALTH_REMOTE_KEY: 'unused-key',
  });
  const [, link] = await waitFor(serve.stdout, /Web UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\n/, serve);
  server = { link: link!, base: new URL(link!).origin, dataDir, snapshot: { datasets: [] }, serve };
  light = await openUi(browser, server, 'light');
  dark = await openUi(browser, server, 'dark', light);
  for (const { context } of [light, dark])
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  killChildren();
  removeTempDirs();
});

const handoffUrl = (query = `?since=${encodeURIComponent(SINCE)}`) =>
  `${server.base}/#/orgs/${SHIFT_ORG}/handoff${query}`;

/** Opens the view and returns the report the page received from the engine for it. */
async function showHandoff(page: Page, query?: string): Promise<HandoffReport> {
  await page.goto('about:blank');
  const answer = page.waitForResponse((response) => response.url().endsWith('/rpc/handoff.get'), {
    timeout: 30_000,
  });
  await page.goto(handoffUrl(query));
  const { result } = (await (await answer).json()) as { result: HandoffReport };
  await page.locator('[data-summary]').waitFor({ timeout: 20_000 });
  return result;
}

const SECTIONS = [
  'newlyFailed',
  'recovered',
  'stillFailing',
  'missing',
  'overdue',
  'snoozed',
  'atRisk',
  'outages',
] as const;

function listOf(
  report: HandoffReport,
  name: (typeof SECTIONS)[number],
): { datasetId?: string; sourceId?: string }[] {
  if (name === 'overdue') return report.overdue.datasets;
  // At-risk deadlines: one row per dataset (its later deadlines on it), as the summary counts them.
  if (name === 'atRisk') return atRiskByDataset(report.atRisk).map(({ first }) => first);
  return report[name];
}

const rowIds = (page: Page, name: string): Promise<string[]> =>
  page
    .locator(`section[data-section="${name}"] [data-row]`)
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-row')!));

async function focused(page: Page): Promise<string> {
  return String(await page.evaluate("document.activeElement?.getAttribute('data-stop') ?? 'elsewhere'"));
}

describe('handoff view', { timeout: 120_000 }, () => {
  it('shows every section of the engine report with its count and rows', async () => {
    const { page } = light;
    const report = await showHandoff(page);
    expect(report.since).toBe(SHIFT_START.toISOString());
    for (const name of SECTIONS) {
      const list = listOf(report, name);
      // The data gives every section something.
      expect(list.length, name).toBeGreaterThan(0);
      const section = page.locator(`section[data-section="${name}"]`);
      expect(await section.getAttribute('data-count'), name).toBe(String(list.length));
      expect(await section.locator('h2').textContent(), name).toContain(`(${list.length})`);
      expect(await rowIds(page, name), name).toEqual(list.map((item) => item.datasetId ?? item.sourceId));
      // A section with rows never also says it has none.
      expect(await section.locator('[data-empty]').count(), name).toBe(0);
    }
    const eq = page.locator('section[data-section="newlyFailed"] [data-row="eq-prices"]');
    expect(await eq.locator('[data-cause]').textContent()).toBe('Ingest failed: E_AUTH_FAILED');
    expect(await eq.locator('[data-ack]').textContent()).toContain('Acknowledged by alex');
    expect(await eq.locator('a[data-stop]').getAttribute('href')).toBe(
      `#/orgs/${SHIFT_ORG}/datasets/eq-prices`,
    );
  });

  it('"Copy as Markdown" copies exactly the shared Markdown of the report shown; c too', async () => {
    const { page } = light;
    const report = await showHandoff(page);
    const expected = handoffMarkdown(report);
    await page.evaluate("navigator.clipboard.writeText('')");
    await page.getByRole('button', { name: 'Copy as Markdown', exact: true }).click();
    await poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(expected);
    await poll(() => page.getByText('Handoff Markdown copied', { exact: true }).count()).toBeGreaterThan(0);
    await page.evaluate("navigator.clipboard.writeText('')");
    await page.evaluate('document.activeElement?.blur()');
    await page.keyboard.press('c');
    await poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(expected);
    // The preview shows the same text.
    await page.getByText('Markdown preview').click();
    expect(await page.locator('[data-markdown]').textContent()).toBe(expected);
  });

  it('keeps since in the URL: a choice is written, the default left out', async () => {
    const { page } = light;
    await showHandoff(page);
    const answer = page.waitForResponse((response) => response.url().endsWith('/rpc/handoff.get'));
    await page.locator('[data-since="24h"]').click();
    await poll(() => decodeURIComponent(page.url())).toBe(handoffUrl('?since=24h'));
    expect((await answer).request().postDataJSON()).toEqual({ orgId: SHIFT_ORG, since: '24h', rows: 100 });
    await page.locator('[data-since="8h"]').click();
    await poll(() => page.url()).toBe(handoffUrl(''));
  });

  it('keyboard: j/k move over the datasets, Enter opens one, Esc comes back to it', async () => {
    const { page } = light;
    const report = await showHandoff(page);
    const [first, second] = report.newlyFailed;
    await page.evaluate('document.activeElement?.blur()');
    await page.keyboard.press('j');
    await poll(() => focused(page)).toBe(`newlyFailed:0:${first!.datasetId}`);
    await page.keyboard.press('j');
    await poll(() => focused(page)).toBe(`newlyFailed:1:${second!.datasetId}`);
    await page.keyboard.press('k');
    await poll(() => focused(page)).toBe(`newlyFailed:0:${first!.datasetId}`);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${server.base}/#/orgs/${SHIFT_ORG}/datasets/${first!.datasetId}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.keyboard.press('Escape');
    await page.waitForURL(handoffUrl());
    await poll(() => focused(page)).toBe(`newlyFailed:0:${first!.datasetId}`);
  });

  it.each(['light', 'dark'] as const)(
    'has no serious or critical accessibility violations, %s',
    async (scheme) => {
      const { page } = scheme === 'light' ? light : dark;
      await showHandoff(page);
      await page.getByText('Markdown preview').click();
      await expectAccessible(page, `handoff, ${scheme}`);
    },
  );

  it('screenshots, light and dark, copied to docs/ for the README', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { page } = scheme === 'light' ? light : dark;
      await showHandoff(page);
      await page.evaluate(
        "document.activeElement?.blur(); document.querySelector('.content')?.scrollTo(0, 0)",
      );
      await screenshot(page, `handoff-${scheme}`);
      copyFileSync(join(SCREENSHOTS, `handoff-${scheme}.png`), join(DOCS, `handoff-${scheme}.png`));
    }
  });

  it('logged no console errors', () => {
    expect(light.errors).toEqual([]);
    expect(dark.errors).toEqual([]);
  });
});
