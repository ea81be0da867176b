/**
 * The Upcoming view in Chromium against a real `serve --ui` (docs/architecture.md#deadlines; issue #9 point 2), over
 * an org imported from datasets whose schedules and histories are built here, so each row's words are
 * known: the rows are the engine's `upcoming.list` (asked over the same session), soonest first, each
 * deadline in the dataset's zone and the user's; the at-risk tag's tooltip is the rule and the
 * dataset's reason; the window and the filters live in the URL; `j`/`k`/`Enter` open a dataset; the
 * schedule card of a dataset says its habits and the rule; axe-core finds no serious or critical
 * violation, light or dark; screenshots for the README. The server runs on the real clock, so every
 * comparison is made against the engine's answer of the same moment (polled: a deadline may pass).
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../../shared/schemas';
import { AT_RISK_RULE, type UpcomingDeadlines } from '../../../shared/upcoming';
import { expectAccessible } from '../../helpers/axe';
import { launchChromium } from '../../helpers/chromium';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { type HistorySpec, dailyDeliveries, historyRecord } from '../../helpers/history';
import { killChildren, spawnCli, waitFor } from '../../helpers/process';
import { SCREENSHOTS, UI_ORG, type UiPage, type UiServer, openUi, screenshot } from '../../helpers/ui';

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });
const DOCS = fileURLToPath(new URL('../../../docs', import.meta.url));

const BLUEFIN = { id: 'sup-bluefin', name: 'Bluefin Exchange Feeds' };
const NORTHWIND = { id: 'sup-northwind', name: 'Northwind Rates' };
const times = (n: number, status: string, offsetMinutes: number | null) =>
  Array.from({ length: n }, () => ({ status, offsetMinutes }));

/** Histories end yesterday: only the habits matter here, and they do not depend on when. */
const yesterday = new Date(Date.now() - 86_400_000);
yesterday.setUTCMinutes(0, 0, 0);
const since = yesterday.toISOString();

/**
 * Every six hours hold about 40 deadlines: hourly prices (on time, 12 min early), FX fixings at :15 and
 * :45 New York time (latest MISSING: at risk), index levels every two hours at :30 Kolkata time (6 of 20
 * on time, 25 min late: at risk), new listings every 20 minutes (no history); one dataset has no schedule.
 */
const SPECS: HistorySpec[] = [
  {
    id: 'prices-hourly',
    name: 'Equity prices hourly',
    supplier: BLUEFIN,
    product: 'Prices',
    cron: '0 * * * *',
    deliveries: dailyDeliveries(since, times(20, 'HEALTHY', -12)),
  },
  {
    id: 'fx-fixings',
    name: 'FX fixings',
    supplier: NORTHWIND,
    product: 'Rates',
    cron: '15,45 * * * *',
    timezone: 'America/New_York',
    deliveries: dailyDeliveries(since, [
      { status: 'MISSING', offsetMinutes: null },
      ...times(5, 'HEALTHY', -3),
    ]),
  },
  {
    id: 'index-levels',
    name: 'Index levels',
    supplier: BLUEFIN,
    product: 'Indices',
    cron: '30 */2 * * *',
    timezone: 'Asia/Kolkata',
    deliveries: dailyDeliveries(since, [...times(14, 'DELIVERED_LATE', 25), ...times(6, 'HEALTHY', -5)]),
  },
  {
    id: 'new-listings',
    name: 'New listings',
    supplier: NORTHWIND,
    product: 'Prices',
    cron: '*/20 * * * *',
    deliveries: [],
  },
  { id: 'legacy-feed', name: 'Legacy feed', cron: '', deliveries: [] },
];

const BIG_ORG = 'tickers';
const TICKERS = 40;

let server: UiServer;
let browser: Browser;
let light: UiPage;
let dark: UiPage;

/** `serve --ui` over a fresh data dir holding these datasets (imported), and two signed-in pages. */
beforeAll(async () => {
  const dataDir = tempDir('dh-ui-upcoming-');
  const snapshot: Snapshot = {
    datasets: SPECS.map((spec) => ({ ...historyRecord(spec), ownerOrgId: UI_ORG })),
    tasks: {},
  };
  const file = join(dataDir, 'snapshot.json');
  writeFileSync(file, JSON.stringify(snapshot));
  const imported = await cli(['import', '--org', UI_ORG, file, '--data-dir', dataDir]);
  if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`);
  // A second org of every-minute schedules: 40 × 1,440 deadlines a day, past the answer's 10,000.
  const tickers: Snapshot = {
    datasets: Array.from({ length: TICKERS }, (_, i) => ({
      ...historyRecord({ id: `ticker-${String(i).padStart(2, '0')}`, cron: '* * * * *', deliveries: [] }),
      ownerOrgId: BIG_ORG,
    })),
    tasks: {},
  };
  const bigFile = join(dataDir, 'tickers.json');
  writeFileSync(bigFile, JSON.stringify(tickers));
  const big = await cli(['import', '--org', BIG_ORG, bigFile, '--data-dir', dataDir]);
  if (big.code !== 0) throw new Error(`import failed: ${big.stderr}`);
  const serve = spawnCli(['serve', '--ui', '--port', '0', '--data-dir', dataDir]);
  browser = await launchChromium();
  const [, link] = await waitFor(serve.stdout, /Web UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\n/, serve);
  server = { link: link!, base: new URL(link!).origin, dataDir, snapshot, serve };
  light = await openUi(browser, server, 'light');
  dark = await openUi(browser, server, 'dark', light);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  killChildren();
  removeTempDirs();
});

/** An instant as the dataset view writes it in the browser's locale: "Thu, Nov 26, 2026, 13:15 EST" (en-US). */
const inZone = (iso: string, timeZone: string, locale: string): string =>
  new Intl.DateTimeFormat(locale, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone,
    timeZoneName: 'short',
  }).format(new Date(iso));

const upcomingUrl = (query = '') => `${server.base}/#/orgs/${UI_ORG}/upcoming${query}`;

/** The engine's answer now, over the page's own session (the same RPC the window calls). */
async function engineUpcoming(page: Page, hours = 6, orgId = UI_ORG): Promise<UpcomingDeadlines> {
  const response = await page
    .context()
    .request.post(`${server.base}/rpc/upcoming.list`, { data: { orgId, hours } });
  expect(response.ok()).toBe(true);
  return ((await response.json()) as { result: UpcomingDeadlines }).result;
}

/** The rows drawn (the virtual table draws those in view), top to bottom: `datasetId|deadline`. */
const shownKeys = (page: Page): Promise<string[]> =>
  page
    .locator('tr[data-deadline-key]')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-deadline-key')!));

/** The view in a new document, its first rows drawn. */
async function showUpcoming(page: Page, query = ''): Promise<void> {
  await page.goto('about:blank');
  await page.goto(upcomingUrl(query));
  await page.locator('tr[data-deadline-key], .n-empty').first().waitFor({ timeout: 20_000 });
}

/** The drawn rows are the engine's first ones, in its order (asked again until both agree: time moves). */
async function expectEngineRows(page: Page, hours = 6): Promise<UpcomingDeadlines> {
  let answer: UpcomingDeadlines | null = null;
  await poll(async () => {
    answer = await engineUpcoming(page, hours);
    const shown = await shownKeys(page);
    const expected = answer.deadlines.slice(0, shown.length).map((d) => `${d.datasetId}|${d.deadline}`);
    return shown.length >= Math.min(10, answer.deadlines.length) && shown.join() === expected.join();
  }).toBe(true);
  return answer!;
}

describe('upcoming view', { timeout: 120_000 }, () => {
  it('lists the engine’s deadlines soonest first, in both zones, with habits and the at-risk tag', async () => {
    const page = light.page;
    // The window first lands where it lands (Triage: a MISSING dataset); then the view.
    await page.waitForURL(/#\/orgs\//, { timeout: 30_000 });
    await showUpcoming(page);
    const answer = await expectEngineRows(page);
    expect(answer.total).toBeGreaterThan(30);
    expect(answer.invalidSchedules).toBe(1);
    const instants = answer.deadlines.map((d) => Date.parse(d.deadline));
    expect(instants).toEqual([...instants].sort((a, b) => a - b));
    expect(await page.locator('.summary').getAttribute('data-total')).toBe(String(answer.total));
    expect(await page.locator('[data-invalid-schedules]').textContent()).toMatch(
      /1 dataset has a schedule that cannot be read/,
    );

    const userZone = String(await page.evaluate('Intl.DateTimeFormat().resolvedOptions().timeZone'));
    const locale = String(await page.evaluate('Intl.DateTimeFormat().resolvedOptions().locale'));
    expect(await page.locator('th', { hasText: 'Your time' }).first().textContent()).toContain(userZone);
    // One row of each dataset: both zones, the habits as constructed, and the at-risk tag's tooltip.
    const expected = {
      'prices-hourly': { zone: /UTC$/, typical: 'usually 12 min early', onTime: '20/20 · 100%', risk: null },
      'fx-fixings': {
        zone: /:(15|45) EST$/,
        typical: 'usually 3 min early',
        onTime: '5/6 · 83%',
        risk: 'its latest delivery was MISSING',
      },
      'index-levels': {
        zone: /:30 GMT\+5:30$/,
        typical: '+25 min late',
        onTime: '6/20 · 30%',
        risk: '6 of its last 20 deliveries were on time (30%)',
      },
      'new-listings': { zone: /UTC$/, typical: '—', onTime: '—', risk: null },
    };
    for (const [id, words] of Object.entries(expected)) {
      const deadline = answer.deadlines.find((d) => d.datasetId === id)!;
      const row = page.locator(`tr[data-deadline-key="${id}|${deadline.deadline}"]`);
      await row.scrollIntoViewIfNeeded();
      const datasetTime = await row.locator('[data-dataset-time]').textContent();
      expect(datasetTime).toBe(inZone(deadline.deadline, deadline.timeZone, locale));
      if (locale === 'en-US') expect(datasetTime).toMatch(words.zone);
      expect(await row.locator('[data-user-time]').textContent()).toBe(
        inZone(deadline.deadline, userZone, locale),
      );
      expect(await row.locator('[data-typical]').textContent()).toBe(words.typical);
      expect(await row.locator('[data-on-time]').textContent()).toBe(words.onTime);
      expect(await row.locator('a[data-dataset-link]').getAttribute('href')).toBe(
        `#/orgs/${UI_ORG}/datasets/${id}`,
      );
      const tag = row.locator('[data-at-risk]');
      expect(await tag.count()).toBe(words.risk === null ? 0 : 1);
      expect(deadline.habits.riskReason).toBe(words.risk);
      if (words.risk !== null) {
        expect(await tag.getAttribute('title')).toBe(`${AT_RISK_RULE} This dataset: ${words.risk}.`);
      }
    }
  });

  it('keeps the window and the filters in the URL', async () => {
    const page = light.page;
    await showUpcoming(page);
    await page.locator('[data-hours="24"]').click();
    await page.waitForURL(upcomingUrl('?hours=24'));
    const day = await expectEngineRows(page, 24);
    expect(day.hours).toBe(24);

    await page.locator('[data-filter="risk"]').click();
    await page.waitForURL(upcomingUrl('?hours=24&risk=1'));
    await poll(async () => {
      const keys = await shownKeys(page);
      return keys.length > 0 && keys.every((key) => /^(fx-fixings|index-levels)\|/.test(key));
    }).toBe(true);

    // A supplier chosen from its menu.
    await page.locator('[data-filter="supplier"]').click();
    await page.locator('.n-base-select-option', { hasText: NORTHWIND.name }).click();
    await page.waitForURL(upcomingUrl(`?hours=24&supplier=${NORTHWIND.id}&risk=1`));
    await poll(async () => {
      const keys = await shownKeys(page);
      return keys.length > 0 && keys.every((key) => key.startsWith('fx-fixings|'));
    }).toBe(true);

    // The same link opened afresh shows the same.
    await showUpcoming(page, `?hours=24&supplier=${NORTHWIND.id}&risk=1`);
    expect(await page.locator('[data-filter="supplier"]').textContent()).toContain(NORTHWIND.name);
    expect(await page.locator('[data-filter="risk"]').getAttribute('aria-checked')).toBe('true');
    await showUpcoming(page, '?product=Indices');
    await poll(async () => (await shownKeys(page)).every((key) => key.startsWith('index-levels|'))).toBe(
      true,
    );
  });

  it('moves with j and k and opens the dataset with Enter, whose schedule card says its habits', async () => {
    const page = light.page;
    await showUpcoming(page, '?product=Indices');
    const keys = await shownKeys(page);
    expect(keys.length).toBeGreaterThan(1);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await poll(() => page.locator('tr.highlighted').getAttribute('data-deadline-key')).toBe(keys[0]);
    await page.keyboard.press('j');
    await poll(() => page.locator('tr.highlighted').getAttribute('data-deadline-key')).toBe(keys[1]);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${server.base}/#/orgs/${UI_ORG}/datasets/index-levels`);
    const card = page.locator('section[aria-labelledby="schedule-title"]');
    await card.locator('[data-habits]').waitFor();
    expect(await card.locator('[data-habits]').textContent()).toContain('+25 min late');
    expect(await card.locator('[data-at-risk]').textContent()).toContain(AT_RISK_RULE);
    expect(await card.locator('tbody time').count()).toBe(5);
    // Esc goes back to the list, the keyboard still on the row it left.
    await page.keyboard.press('Escape');
    await page.waitForURL(upcomingUrl('?product=Indices'));
    await poll(() => page.locator('tr.highlighted').getAttribute('data-deadline-key')).toBe(keys[1]);
    // `/` searches.
    await page.keyboard.press('/');
    await page.keyboard.type('levels');
    await page.waitForURL(upcomingUrl('?product=Indices&q=levels'));
  });

  it('shows the soonest 10,000 of a day of every-minute deadlines, says so, and scrolls them virtually', async () => {
    const page = light.page;
    await page.goto('about:blank');
    const started = Date.now();
    await page.goto(`${server.base}/#/orgs/${BIG_ORG}/upcoming?hours=24`);
    await page.locator('tr[data-deadline-key]').first().waitFor({ timeout: 20_000 });
    const firstRows = Date.now() - started;
    const answer = await engineUpcoming(page, 24, BIG_ORG);
    expect(answer.deadlines).toHaveLength(10_000);
    expect(answer.truncated).toBe(true);
    expect(answer.total).toBeGreaterThanOrEqual(TICKERS * 1_439);
    expect(await page.locator('[data-truncated]').textContent()).toMatch(
      /Showing the soonest 10,000 of [\d,]+ deadlines/,
    );
    expect(Number(await page.locator('.summary').getAttribute('data-rows'))).toBe(10_000);
    // Only the rows in view exist: scrolling to the end draws the last ones, not ten thousand.
    expect(await page.locator('tr[data-deadline-key]').count()).toBeLessThan(100);
    const scrolled = Date.now();
    await page
      .locator('.upcoming-table .v-vl')
      .last()
      .evaluate((body) => body.scrollTo(0, body.scrollHeight));
    await poll(async () => {
      const keys = await shownKeys(page);
      const lastAsked = (await engineUpcoming(page, 24, BIG_ORG)).deadlines.at(-1)!;
      return keys.at(-1) === `${lastAsked.datasetId}|${lastAsked.deadline}`;
    }).toBe(true);
    expect(await page.locator('tr[data-deadline-key]').count()).toBeLessThan(100);
    // Generous budgets (two shared cores): the first rows of 10,000 and a jump to the end.
    expect(firstRows).toBeLessThan(5_000);
    expect(Date.now() - scrolled).toBeLessThan(5_000);
  });

  it.each(['light', 'dark'] as const)(
    'has no serious or critical accessibility violations, %s; screenshot to docs/',
    async (scheme) => {
      const { page } = scheme === 'light' ? light : dark;
      if (scheme === 'dark') await page.waitForURL(/#\/orgs\//, { timeout: 30_000 });
      await showUpcoming(page);
      await expectEngineRows(page);
      await expectAccessible(page, `upcoming, ${scheme}`);
      await page.evaluate(
        "document.activeElement?.blur(); document.querySelector('.content')?.scrollTo(0, 0)",
      );
      await screenshot(page, `upcoming-${scheme}`);
      copyFileSync(join(SCREENSHOTS, `upcoming-${scheme}.png`), join(DOCS, `upcoming-${scheme}.png`));
    },
  );

  it('logged no console errors', () => {
    expect(light.errors).toEqual([]);
    expect(dark.errors).toEqual([]);
  });
});
