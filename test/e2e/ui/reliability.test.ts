/**
 * The Reliability view in Chromium against `serve --ui` over imported demo data with a month of
 * history (docs/architecture.md#reliability; issue 14 point 4): the table's rows are the engine's `stats.get` answer in
 * its order, shown as the view formats them; switching the grouping and the window updates the URL and
 * the rows; `/` searches; a bad link is said; `j`/`k` select (the chart follows) and `Enter` opens a supplier's
 * datasets or a dataset; the chart is an SVG with a bar per week that had late, missing or failed
 * deliveries and a point per week that had any, in light and dark; axe-core finds no serious or critical
 * violation; the dataset view's own on-time chart and sentence; screenshots for the README.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ReliabilityStats, StatsDays, StatsGroup, StatsGroupBy } from '../../../shared/reliability';
import { expectAccessible } from '../../helpers/axe';
import { SCREENSHOTS, UI_ORG, screenshot, uiSuite } from '../../helpers/ui';

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 15_000 });

const suite = uiSuite(300, { dark: true });
const DOCS = fileURLToPath(new URL('../../../docs', import.meta.url));

const reliabilityUrl = (query = '') => `${suite.server.base}/#/orgs/${UI_ORG}/reliability${query}`;

/** The engine's answer, asked as the window asks it (POST /rpc/stats.get with the page's session). */
async function engineStats(page: Page, groupBy: StatsGroupBy, days: StatsDays): Promise<ReliabilityStats> {
  const response = await page.request.post(`${suite.server.base}/rpc/stats.get`, {
    data: { orgId: UI_ORG, groupBy, days, key: null },
  });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { result: ReliabilityStats }).result;
}

/**
 * The figures as the view is meant to write them, computed here independently: whole percentages
 * ("100%" only when all, "0%" only when none), counts, lateness as "+1 h 5 min" or "on time", "—" for
 * nothing to measure.
 */
function rate(value: number | null): string {
  if (value === null) return '—';
  const percent = Math.round(value * 100);
  return `${value > 0 && percent === 0 ? 1 : value < 1 && percent === 100 ? 99 : percent}%`;
}
function human(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return `${Math.round(ms / 1000)} s`;
  const hours = Math.floor(minutes / 60);
  if (hours >= 24) return `${Math.floor(hours / 24)} d ${hours % 24} h`;
  return hours > 0 ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}
const lateness = (ms: number | null): string => (ms === null ? '—' : ms <= 0 ? 'on time' : `+${human(ms)}`);
const recovery = (ms: number | null): string => (ms === null ? '—' : human(ms));
function name(group: StatsGroup, groupBy: StatsGroupBy): string {
  if (group.name) return group.name;
  if (group.key !== '') return group.key;
  return groupBy === 'dataProduct' ? '(no data product)' : `(no ${groupBy})`;
}

/** The chart's colours (the status strip's): late, missing, failed bars; the on-time line's points. */
const COLOURS = { late: '#8a6dd6', missing: '#f0a020', failed: '#d03050', onTime: '#18a058' };

/** A dataset's supplier as the imported snapshot names it: its name, else its id, else "—". */
function supplierOf(datasetId: string): string {
  const record = suite.server.snapshot.datasets.find((dataset) => dataset.datasetId === datasetId);
  return record?.supplier?.name || record?.supplier?.id || '—';
}

/** A row as the view draws it from a group (the columns of ReliabilityTable.vue). */
function expectedRow(group: StatsGroup, groupBy: StatsGroupBy): string[] {
  const f = group.figures;
  return [
    name(group, groupBy),
    // Per dataset, its supplier and id beside the name; else how many datasets.
    ...(groupBy === 'dataset' ? [supplierOf(group.key), group.key] : [group.datasets.toLocaleString('en')]),
    f.deliveries.toLocaleString('en'),
    rate(f.onTimeRate),
    rate(f.lateRate),
    rate(f.missingRate),
    rate(f.failedRate),
    lateness(f.medianLatenessMs),
    lateness(f.p90LatenessMs),
    recovery(f.medianTimeToRecoverMs),
  ];
}

/** The rows drawn (the table is virtual: the first screenful), key and cell texts. */
function shownRows(page: Page): Promise<{ key: string; cells: string[] }[]> {
  return page.locator('tr[data-group-key]').evaluateAll((rows) =>
    rows.map((row) => ({
      key: row.getAttribute('data-group-key')!,
      cells: [...row.querySelectorAll('td')].map((cell) => (cell.textContent ?? '').trim()),
    })),
  );
}

/** Waits until the drawn rows are the engine's first groups, in its order, with its figures. */
async function expectRowsMatch(
  page: Page,
  groupBy: StatsGroupBy,
  days: StatsDays,
): Promise<ReliabilityStats> {
  const stats = await engineStats(page, groupBy, days);
  expect(stats.groups.length).toBeGreaterThan(1);
  await poll(async () => {
    const rows = await shownRows(page);
    return rows.length > 0 && rows.every((row, i) => row.key === stats.groups[i]?.key);
  }).toBe(true);
  const rows = await shownRows(page);
  expect(rows.length).toBeGreaterThan(1);
  expect(rows).toEqual(
    rows.map((_, i) => ({ key: stats.groups[i]!.key, cells: expectedRow(stats.groups[i]!, groupBy) })),
  );
  const summary = page.locator('.summary');
  await poll(() => summary.getAttribute('data-groups')).toBe(String(stats.groups.length));
  const deliveries = stats.groups.reduce((sum, group) => sum + group.figures.deliveries, 0);
  expect(await summary.getAttribute('data-deliveries')).toBe(String(deliveries));
  return stats;
}

/** The view in a new document (a link followed from outside). */
async function showReliability(page: Page, query = ''): Promise<void> {
  await page.goto('about:blank');
  await page.goto(reliabilityUrl(query));
  await page.locator('tr[data-group-key]').first().waitFor({ timeout: 20_000 });
}

const selectedKey = (page: Page) => page.locator('tr[aria-current="true"]').getAttribute('data-group-key');
const chartKey = (page: Page) => page.locator('.trend-card').getAttribute('data-selected-key');

/** What the chart's SVG draws in a series' colour: the bars' and the points' shapes. */
function shapesIn(page: Page, colour: string): Promise<number> {
  return page
    .locator('.trend-card svg path')
    .evaluateAll(
      (paths, fill) => paths.filter((path) => path.getAttribute('fill')?.toLowerCase() === fill).length,
      colour.toLowerCase(),
    );
}

describe('reliability view', () => {
  it('lists suppliers worst first, by default over 30 days, as the engine computes them', async () => {
    const { page } = suite.light;
    // The window lands on Triage while anything is FAILED: let it, then go to Reliability.
    await page.waitForURL(/#\/orgs\/acme\/triage/, { timeout: 20_000 });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reliability' }).click();
    await page.waitForURL(reliabilityUrl());
    await page.locator('tr[data-group-key]').first().waitFor({ timeout: 20_000 });
    const stats = await expectRowsMatch(page, 'supplier', 30);
    // Worst first: the on-time rates never rise down the list (groups without deliveries last).
    const rates = stats.groups.map((group) => group.figures.onTimeRate ?? 2);
    expect(rates).toEqual([...rates].sort((a, b) => a - b));
    expect(await page.getByRole('radio', { name: 'By supplier' }).isChecked()).toBe(true);
    expect(await page.getByRole('radio', { name: '30 days' }).isChecked()).toBe(true);
    // The worst is selected and charted, with its sentence.
    expect(await selectedKey(page)).toBe(stats.groups[0]!.key);
    expect(await chartKey(page)).toBe(stats.groups[0]!.key);
    const worst = stats.groups[0]!;
    expect(await page.locator('[data-trend-summary]').textContent()).toContain(
      `on time ${worst.figures.onTime} of ${worst.figures.deliveries} deliveries in the last 30 days`,
    );
  });

  it('switching the grouping and the window updates the URL and the rows', async () => {
    const { page } = suite.light;
    await showReliability(page);
    await page.getByRole('radio', { name: 'By dataset' }).click({ force: true });
    await page.waitForURL(reliabilityUrl('?groupBy=dataset&days=30'));
    await expectRowsMatch(page, 'dataset', 30);
    await page.getByRole('radio', { name: '90 days' }).click({ force: true });
    await page.waitForURL(reliabilityUrl('?groupBy=dataset&days=90'));
    await expectRowsMatch(page, 'dataset', 90);
    await page.getByRole('radio', { name: 'By data product' }).click({ force: true });
    await page.waitForURL(reliabilityUrl('?groupBy=dataProduct&days=90'));
    await expectRowsMatch(page, 'dataProduct', 90);
    // A link straight to a grouping and window; back and forward follow the URL.
    await showReliability(page, '?groupBy=supplier&days=7');
    await expectRowsMatch(page, 'supplier', 7);
    expect(await page.getByRole('radio', { name: '7 days' }).isChecked()).toBe(true);
  });

  it('/ searches the groups by name, kept in the URL', async () => {
    const { page } = suite.light;
    await showReliability(page, '?groupBy=supplier&days=30');
    const stats = await expectRowsMatch(page, 'supplier', 30);
    const target = stats.groups[stats.groups.length - 1]!;
    await page.keyboard.press('/');
    await page.keyboard.type(target.name!);
    await poll(() => new URLSearchParams(page.url().split('?')[1] ?? '').get('q')).toBe(target.name);
    const matching = stats.groups.filter((group) =>
      group.name!.toLowerCase().includes(target.name!.toLowerCase()),
    );
    await poll(async () => (await shownRows(page)).map((row) => row.key)).toEqual(
      matching.map((group) => group.key),
    );
    expect(await page.locator('.trend-card').getAttribute('data-selected-key')).toBe(matching[0]!.key);
  });

  it('says what part of a link it did not understand, and shows the defaults', async () => {
    const { page } = suite.light;
    await showReliability(page, '?groupBy=team&days=14');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const text = (await alert.textContent()) ?? '';
    expect(text).toContain('groupBy "team" is not one of dataset, supplier, dataProduct');
    expect(text).toContain('days "14" is not one of 7, 30, 90');
    await expectRowsMatch(page, 'supplier', 30);
  });

  it('keyboard: j/k select a group and its chart, Enter opens the supplier’s datasets or a dataset', async () => {
    const { page } = suite.light;
    await showReliability(page, '?groupBy=supplier&days=30');
    const stats = await expectRowsMatch(page, 'supplier', 30);
    const [first, second] = stats.groups;
    await page.keyboard.press('j');
    await poll(() => selectedKey(page)).toBe(second!.key);
    await poll(() => chartKey(page)).toBe(second!.key);
    await page.keyboard.press('k');
    await poll(() => selectedKey(page)).toBe(first!.key);
    await page.keyboard.press('j');
    await poll(() => selectedKey(page)).toBe(second!.key);
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/orgs\/acme\/datasets\?/);
    expect(decodeURIComponent(page.url())).toContain(`f=supplierId.eq.${second!.key}`);
    // The datasets view shows that supplier's datasets: as many as the group counts.
    await poll(() => page.locator('.summary').getAttribute('data-total')).toBe(String(second!.datasets));
    // Back: the same supplier is still selected.
    await page.goBack();
    await page.waitForURL(reliabilityUrl('?groupBy=supplier&days=30'));
    await poll(() => selectedKey(page)).toBe(second!.key);

    await showReliability(page, '?groupBy=dataset&days=30');
    const datasets = await expectRowsMatch(page, 'dataset', 30);
    await page.keyboard.press('Enter');
    await page.waitForURL(
      `${suite.server.base}/#/orgs/${UI_ORG}/datasets/${encodeURIComponent(datasets.groups[0]!.key)}`,
    );
    await page.getByRole('heading', { level: 1 }).waitFor();
  });

  it.each(['light', 'dark'] as const)(
    'draws the weekly trend as an SVG (a bar per week not all on time, a point per week with deliveries), %s',
    async (scheme) => {
      const { page } = scheme === 'light' ? suite.light : suite.dark;
      await showReliability(page, '?groupBy=supplier&days=90');
      const stats = await expectRowsMatch(page, 'supplier', 90);
      const worst = stats.groups[0]!;
      expect(worst.weeks.length).toBeGreaterThanOrEqual(12);
      await page.locator('.trend-card svg').waitFor();
      const weeksWith = (count: (week: StatsGroup['weeks'][number]) => number) =>
        worst.weeks.filter((week) => count(week) > 0).length;
      await poll(() => shapesIn(page, COLOURS.onTime)).toBe(weeksWith((week) => week.deliveries));
      expect(await shapesIn(page, COLOURS.late)).toBe(weeksWith((week) => week.late));
      expect(await shapesIn(page, COLOURS.missing)).toBe(weeksWith((week) => week.missing));
      expect(await shapesIn(page, COLOURS.failed)).toBe(weeksWith((week) => week.failed));
      // Screen readers: ECharts' description names the chart; the weeks are a table.
      const chart = page.getByRole('img', { name: /Weekly trend of/ });
      expect(await chart.count()).toBe(1);
      expect(await page.locator('.trend-card table tbody tr').count()).toBe(worst.weeks.length);
      await expectAccessible(page, `reliability, ${scheme}`);
    },
  );

  it.each(['light', 'dark'] as const)(
    "the dataset view's on-time chart: its weeks over 90 days and the last 30 days in a sentence, %s",
    async (scheme) => {
      const { page } = scheme === 'light' ? suite.light : suite.dark;
      const quarter = await engineStats(page, 'dataset', 90);
      const month = await engineStats(page, 'dataset', 30);
      // A dataset that was not always on time, with deliveries in the most weeks (a daily one, not an
      // hourly one whose 30 retained deliveries fit in a week), the worst of those.
      const spread = (group: StatsGroup) => group.weeks.filter((week) => week.deliveries > 0).length;
      const dataset = quarter.groups
        .filter((group) => group.figures.onTimeRate !== null && group.figures.onTimeRate < 1)
        .reduce((best, group) => (spread(group) > spread(best) ? group : best));
      const monthFigures = month.groups.find((group) => group.key === dataset.key)!.figures;
      await page.goto('about:blank');
      await page.goto(`${suite.server.base}/#/orgs/${UI_ORG}/datasets/${encodeURIComponent(dataset.key)}`);
      const section = page.locator('section[aria-labelledby="on-time-title"]');
      await section.locator('svg').waitFor({ timeout: 20_000 });
      expect(await section.locator('[data-on-time-summary]').textContent()).toContain(
        `on time ${monthFigures.onTime} of ${monthFigures.deliveries} ${monthFigures.deliveries === 1 ? 'delivery' : 'deliveries'} in the last 30 days`,
      );
      const points = () =>
        section
          .locator('svg path')
          .evaluateAll(
            (paths, fill) => paths.filter((path) => path.getAttribute('fill')?.toLowerCase() === fill).length,
            COLOURS.onTime,
          );
      await poll(points).toBe(dataset.weeks.filter((week) => week.deliveries > 0).length);
      expect(await section.getByRole('img', { name: /Weekly on-time trend of/ }).count()).toBe(1);
      await expectAccessible(page, `dataset view with its on-time chart, ${scheme}`);
      if (scheme === 'light') {
        await section.scrollIntoViewIfNeeded();
        await section.screenshot({ path: join(DOCS, 'reliability-dataset-light.png') });
      }
    },
  );

  it('screenshots, light and dark, copied to docs/ for the README', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { page } = scheme === 'light' ? suite.light : suite.dark;
      await showReliability(page, '?groupBy=supplier&days=90');
      await page.locator('.trend-card svg').waitFor();
      await page.evaluate(
        "document.activeElement?.blur(); document.querySelector('.content')?.scrollTo(0, 0)",
      );
      await screenshot(page, `reliability-${scheme}`);
      copyFileSync(join(SCREENSHOTS, `reliability-${scheme}.png`), join(DOCS, `reliability-${scheme}.png`));
    }
  });

  it('logged no console errors', () => {
    expect(suite.light.errors).toEqual([]);
    expect(suite.dark.errors).toEqual([]);
  });
});
