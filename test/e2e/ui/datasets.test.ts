/**
 * The datasets view in Chromium against `serve --ui` with imported data: rows, chip counts, search and
 * every filter field against a reference computed from the imported snapshot, status sort, keyboard.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { likeToMatcher } from '../../../shared/filter';
import type { DatasetRecord } from '../../../shared/schemas';
import { DELIVERY_STATUSES } from '../../../shared/status';
import { UI_ORG, screenshot, uiSuite } from '../../helpers/ui';

const suite = uiSuite(300);
const records = (): DatasetRecord[] => suite.server.snapshot.datasets;

const summary = (page: Page) => page.locator('.summary');

/**
 * Waits until the view says how many datasets match and the table holds exactly that many rows (all its
 * pages loaded: the count and the rows are separate queries, so this also checks the paging).
 */
async function shownTotal(page: Page, expected: number): Promise<void> {
  await expect
    .poll(
      async () => (await summary(page).textContent())?.match(/^([\d,]+) dataset/)?.[1]?.replace(/,/g, ''),
      {
        timeout: 10_000,
      },
    )
    .toBe(String(expected));
  await expect
    .poll(() => summary(page).getAttribute('data-rows'), { timeout: 10_000 })
    .toBe(String(expected));
}

async function visibleIds(page: Page): Promise<string[]> {
  return page
    .locator('tr[data-dataset-id]')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-dataset-id')!));
}

async function gotoDatasets(page: Page, query = ''): Promise<void> {
  await page.goto(`${suite.server.base}/#/orgs/${UI_ORG}/datasets${query}`);
  await page.locator('tr[data-dataset-id]').first().waitFor();
}

describe('datasets view', () => {
  it('shows the imported datasets, worst status first, with chips that count each status', async () => {
    const { page } = suite.light;
    // The window lands on Triage (the demo has FAILED datasets): the datasets are one link away.
    await page.waitForURL(/#\/orgs\/[^/]+\/triage$/, { timeout: 20_000 });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Datasets' }).click();
    await page.locator('tr[data-dataset-id]').first().waitFor({ timeout: 20_000 });
    expect(page.url()).toContain(`#/orgs/${UI_ORG}/datasets`);
    await shownTotal(page, records().length);
    for (const status of DELIVERY_STATUSES) {
      const count = records().filter((r) => r.latestDeliveryStatus === status).length;
      await expect
        .poll(() => page.locator(`[data-chip="${status}"]`).getAttribute('aria-label'))
        .toMatch(new RegExp(`: ${count} datasets$`));
    }
    const firstId = (await visibleIds(page))[0];
    expect(records().find((r) => r.datasetId === firstId)?.latestDeliveryStatus).toBe('FAILED');
    await screenshot(page, 'datasets-light');
  });

  it('a chip narrows the table to its status, and the URL keeps it across a reload', async () => {
    const { page } = suite.light;
    await gotoDatasets(page);
    await page.locator('[data-chip="MISSING"]').click();
    const missing = records().filter((r) => r.latestDeliveryStatus === 'MISSING');
    await shownTotal(page, missing.length);
    expect(page.url()).toContain('status=MISSING');
    await page.reload();
    await shownTotal(page, missing.length);
    const ids = new Set(missing.map((r) => r.datasetId));
    for (const id of await visibleIds(page)) expect(ids.has(id)).toBe(true);
  });

  it('search narrows the rows to names, ids, products and suppliers containing the text', async () => {
    const { page } = suite.light;
    await gotoDatasets(page);
    const word = records()[7]!.dataProductName!.split(' ')[0]!.toLowerCase();
    await page.getByLabel('Search datasets').fill(word);
    const matches = records().filter((r) =>
      [r.datasetName, r.datasetId, r.dataProductName, r.supplier.id, r.supplier.name].some((v) =>
        (v ?? '').toLowerCase().includes(word),
      ),
    );
    await shownTotal(page, matches.length);
    expect(page.url()).toContain(`q=${encodeURIComponent(word)}`);
    const ids = new Set(matches.map((r) => r.datasetId));
    for (const id of await visibleIds(page)) expect(ids.has(id)).toBe(true);
  });

  const sample = () => records().find((r) => r.legacyDatasetId !== null && r.supplier.id !== null)!;
  const filterCases: {
    label: string;
    field: string;
    operator: string;
    value: () => string;
    keep: (r: DatasetRecord) => boolean;
  }[] = [
    {
      label: 'Dataset name',
      field: 'datasetName',
      operator: 'matches, any case (* = anything)',
      value: () => sample().datasetName!.slice(0, 4).toUpperCase(),
      keep: (r) => likeToMatcher(`*${sample().datasetName!.slice(0, 4)}*`, true)(r.datasetName ?? ''),
    },
    {
      label: 'Dataset id',
      field: 'datasetId',
      operator: 'is',
      value: () => sample().datasetId,
      keep: (r) => r.datasetId === sample().datasetId,
    },
    {
      label: 'Data product',
      field: 'dataProduct',
      operator: 'is',
      value: () => sample().dataProductName!,
      keep: (r) => r.dataProductName === sample().dataProductName,
    },
    {
      label: 'Supplier id',
      field: 'supplierId',
      operator: 'is not',
      value: () => sample().supplier.id!,
      keep: (r) => r.supplier.id !== sample().supplier.id,
    },
    {
      label: 'Delivery status',
      field: 'deliveryStatus',
      operator: 'is one of (comma-separated)',
      value: () => 'FAILED, DELIVERED_LATE',
      keep: (r) => r.latestDeliveryStatus === 'FAILED' || r.latestDeliveryStatus === 'DELIVERED_LATE',
    },
    {
      label: 'Delivery id',
      field: 'deliveryId',
      operator: 'is',
      value: () => sample().deliveryId!,
      keep: (r) => r.deliveryId === sample().deliveryId,
    },
    {
      label: 'Legacy dataset id',
      field: 'legacyDatasetId',
      operator: 'is',
      value: () => sample().legacyDatasetId!,
      keep: (r) => r.legacyDatasetId === sample().legacyDatasetId,
    },
  ];

  it.each(filterCases)(
    'the $label filter narrows the rows exactly',
    async ({ label, operator, value, keep }) => {
      const { page } = suite.light;
      await gotoDatasets(page);
      await page.getByLabel('Filter field').click();
      await page.locator('.n-base-select-option', { hasText: new RegExp(`^${label}$`) }).click();
      await page.getByLabel('Filter operator').click();
      await page.locator('.n-base-select-option', { hasText: operator }).first().click();
      await page.getByLabel('Filter value').fill(value());
      await page.getByRole('button', { name: 'Add filter' }).click();
      const expected = records().filter(keep);
      expect(expected.length).toBeGreaterThan(0);
      await shownTotal(page, expected.length);
      const ids = new Set(expected.map((r) => r.datasetId));
      for (const id of await visibleIds(page)) expect(ids.has(id)).toBe(true);
    },
  );

  it('a filter the grammar refuses is explained and changes nothing', async () => {
    const { page } = suite.light;
    await gotoDatasets(page);
    await page.getByLabel('Filter field').click();
    await page.locator('.n-base-select-option', { hasText: /^Delivery status$/ }).click();
    await page.getByLabel('Filter value').fill('BROKEN');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await expect
      .poll(() => page.getByRole('alert').first().textContent())
      .toMatch(/'BROKEN' is not a delivery status/);
    await shownTotal(page, records().length);
  });

  const byTime = (r: DatasetRecord) => Date.parse(r.latestDeliveryTimestamp!);
  const sortCases = [
    {
      sort: 'latestDeliveryTimestamp.desc',
      first: () => [...timed()].sort((a, b) => byTime(b) - byTime(a))[0]!.latestDeliveryTimestamp,
      of: (r: DatasetRecord | undefined) => r?.latestDeliveryTimestamp,
    },
    {
      sort: 'latestDeliveryTimestamp.asc',
      first: () => [...timed()].sort((a, b) => byTime(a) - byTime(b))[0]!.latestDeliveryTimestamp,
      of: (r: DatasetRecord | undefined) => r?.latestDeliveryTimestamp,
    },
    {
      sort: 'latestDeliveryStatus.desc',
      first: () => 'HEALTHY',
      of: (r: DatasetRecord | undefined) => r?.latestDeliveryStatus,
    },
  ];
  const timed = () => records().filter((r) => r.latestDeliveryTimestamp !== null);

  it.each(sortCases)('sorts by $sort', async ({ sort, first, of }) => {
    const { page } = suite.light;
    await gotoDatasets(page, `?sort=${sort}`);
    // Until the new order arrives, the rows on screen may still be the previous query's.
    const shownFirst = async () => {
      const firstId = (await visibleIds(page))[0];
      return of(records().find((r) => r.datasetId === firstId));
    };
    await expect.poll(shownFirst, { timeout: 10_000 }).toBe(first());
  });

  it('keyboard: / focuses search, j/k move, Enter opens, Esc goes back', async () => {
    const { page } = suite.light;
    await gotoDatasets(page);
    // The default order (worst first) is on screen, not the previous test's.
    await expect
      .poll(() => page.locator('tr[data-dataset-id] [data-status]').first().getAttribute('data-status'))
      .toBe('FAILED');
    await page.keyboard.press('/');
    await expect
      .poll(() => page.evaluate("document.activeElement?.closest('[data-search]') !== null"))
      .toBe(true);
    await page.keyboard.press('Escape');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    // j, j, k: the second row, then back to the first.
    const highlighted = page.locator('tr.highlighted');
    await expect.poll(() => highlighted.count()).toBe(1);
    const id = (await highlighted.getAttribute('data-dataset-id'))!;
    expect(id).toBe((await visibleIds(page))[0]);
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/datasets/${encodeURIComponent(id)}$`));
    await page.keyboard.press('Escape');
    await page.waitForURL(/\/datasets$/);
  });

  it('logged no console errors', () => {
    expect(suite.light.errors).toEqual([]);
  });
});
