/**
 * Accessibility of the window in Chromium against `serve --ui` with imported data (docs/accessibility.md):
 * axe-core finds no serious or critical WCAG 2.0/2.1 A or AA violation on any view, light or dark, nor
 * in the states the keyboard reaches (pressed chips, filters, a refused filter, a snooze); and every
 * control is reached with Tab and worked with Enter or Space, with the shortcuts of docs/architecture.md#the-window.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { STAGES } from '../../../shared/status';
import type { DatasetRecord, DeliveryEvent } from '../../../shared/schemas';
import { expectAccessible, textContrast } from '../../helpers/axe';
import { UI_ORG, uiSuite } from '../../helpers/ui';

/** Waits for a value: the server and the browser share the machine with other tests, so not just 1 s. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 10_000 });

const suite = uiSuite(300, { dark: true });

/** A FAILED dataset and its newest FAILED delivery with a failed task: the views at their fullest. */
function failedExample(): { dataset: DatasetRecord; delivery: DeliveryEvent } {
  for (const dataset of suite.server.snapshot.datasets) {
    if (dataset.latestDeliveryStatus !== 'FAILED') continue;
    const delivery = dataset.deliveryEventList.find(
      (event) => event.status === 'FAILED' && event.deliveryId !== null,
    );
    const tasks = delivery && suite.server.snapshot.tasks?.[delivery.deliveryId!];
    if (tasks && STAGES.some((stage) => tasks[stage].tasks.some((task) => task.status === 'FAILED'))) {
      return { dataset, delivery: delivery! };
    }
  }
  throw new Error('the demo snapshot has no FAILED dataset with a failed task');
}

const datasetsUrl = () => `${suite.server.base}/#/orgs/${UI_ORG}/datasets`;
const datasetUrl = (datasetId: string) => `${datasetsUrl()}/${encodeURIComponent(datasetId)}`;
const deliveryUrl = (datasetId: string, deliveryId: string) =>
  `${datasetUrl(datasetId)}/deliveries/${encodeURIComponent(deliveryId)}`;

/** Each view: how to get there and what shows it is drawn with its data. */
const VIEWS: { view: string; open: (page: Page) => Promise<void> }[] = [
  {
    view: 'datasets',
    open: async (page) => {
      // `/` opens the org's Triage (the demo has FAILED datasets): the datasets are opened directly.
      await page.goto(datasetsUrl());
      await page.locator('tr[data-dataset-id]').first().waitFor({ timeout: 20_000 });
      await poll(() => page.locator('.summary').textContent()).toMatch(/^[\d,]+ datasets/);
    },
  },
  {
    view: 'dataset',
    open: async (page) => {
      const { dataset } = failedExample();
      await page.goto(datasetUrl(dataset.datasetId));
      await poll(() => page.locator('section[aria-labelledby="history-title"] tbody tr').count()).toBe(
        dataset.deliveryEventList.length,
      );
    },
  },
  {
    view: 'delivery',
    open: async (page) => {
      const { dataset, delivery } = failedExample();
      await page.goto(deliveryUrl(dataset.datasetId, delivery.deliveryId!));
      await page.locator('section[aria-label="Failure reasons"]').getByRole('alert').first().waitFor();
      await page.locator('section[aria-label="Stages"] section[data-stage="dispatch"]').waitFor();
    },
  },
  {
    view: 'settings',
    open: async (page) => {
      await page.goto(`${suite.server.base}/#/settings`);
      await page.getByRole('heading', { level: 2, name: 'Sources' }).waitFor();
      await page.locator('[data-api-url]').waitFor();
    },
  },
];

describe('accessibility: axe-core on every view', () => {
  describe.each(['light', 'dark'] as const)('%s', (scheme) => {
    it.each(VIEWS)('$view has no serious or critical violations', async ({ view, open }) => {
      const { page } = scheme === 'light' ? suite.light : suite.dark;
      await open(page);
      await expectAccessible(page, `${view}, ${scheme}`);
    });
  });
});

/** The focused element's name as a person hears it: its label, else its text; a dataset row by its id. */
const FOCUSED = `(() => {
  const element = document.activeElement;
  if (!element || element === document.body) return 'body';
  const row = element.closest('tr[data-dataset-id]');
  if (row) return 'row ' + row.getAttribute('data-dataset-id');
  const labelledBy = element.getAttribute('aria-labelledby');
  // naive-ui's select takes its label on its root, around the focusable box.
  const label =
    element.getAttribute('aria-label') ??
    (labelledBy ? document.getElementById(labelledBy)?.textContent?.trim() : undefined) ??
    element.closest('.n-select')?.getAttribute('aria-label');
  return label ?? element.textContent?.trim() ?? '';
})()`;

const focused = async (page: Page): Promise<string> => String(await page.evaluate(FOCUSED));

/** Presses Tab until `until` is focused (at most `max` times) and returns what was focused on the way. */
async function tabUntil(page: Page, until: RegExp, max = 40): Promise<string[]> {
  const stops: string[] = [];
  while (stops.length < max) {
    await page.keyboard.press('Tab');
    stops.push(await focused(page));
    if (until.test(stops.at(-1)!)) return stops;
  }
  throw new Error(`Tab never reached ${until}: ${stops.join(' → ')}`);
}

const rowIds = (page: Page): Promise<string[]> =>
  page
    .locator('tr[data-dataset-id]')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-dataset-id')!));

async function showDatasets(page: Page, query = ''): Promise<void> {
  await page.goto(`${datasetsUrl()}${query}`);
  await page.locator('tr[data-dataset-id]').first().waitFor({ timeout: 20_000 });
}

const chip = (page: Page, status: string) => page.locator(`[data-chip="${status}"]`);

describe('accessibility: the keyboard', () => {
  it('Tab goes from the navigation through the chips, search, sort and filter bar to the table rows', async () => {
    const { page } = suite.light;
    await showDatasets(page);
    // From the first stop of the page (a reload's starting point is up to the browser).
    await page.getByRole('link', { name: 'Dataset Health' }).focus();
    const stops = [await focused(page), ...(await tabUntil(page, /^row /))];
    // Counts as N, so the comparison shows the whole order when it differs.
    expect(stops.map((stop) => stop.replace(/\d[\d,]*/g, 'N'))).toEqual([
      'Dataset Health',
      'Triage',
      'Datasets',
      'Reliability',
      'Upcoming',
      'Handoff',
      'Settings',
      'Failed: N datasets',
      'Missing: N datasets',
      'Late: N datasets',
      'Healthy: N datasets',
      'Search datasets',
      'Sort',
      'Filter field',
      'Filter operator',
      'Filter value',
      'Add filter',
      'Unacknowledged only',
      'Cause',
      'row ' + (await rowIds(page))[0]!.replace(/\d[\d,]*/g, 'N'),
    ]);
    // The focused row is the highlighted one, drawn with a focus ring.
    const row = page.locator('tr[data-dataset-id]').first();
    await poll(() => row.getAttribute('class')).toContain('highlighted');
    await expect(page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).resolves.toBe(
      'solid',
    );
  });

  it('in the table, j/k carry focus from row to row, Space and Enter open the focused one, Esc comes back', async () => {
    const { page } = suite.light;
    await showDatasets(page);
    await poll(() =>
      page.locator('tr[data-dataset-id] [data-status]').first().getAttribute('data-status'),
    ).toBe('FAILED');
    const ids = await rowIds(page);
    // The last control above the table: the triage filters' cause.
    await page.locator('[data-cause] input').focus();
    await page.keyboard.press('Tab');
    await poll(() => focused(page)).toBe(`row ${ids[0]}`);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await poll(() => focused(page)).toBe(`row ${ids[2]}`);
    await page.keyboard.press('k');
    await poll(() => focused(page)).toBe(`row ${ids[1]}`);
    await expect(page.locator('tr.highlighted').getAttribute('data-dataset-id')).resolves.toBe(ids[1]);

    await page.keyboard.press(' ');
    await page.waitForURL(datasetUrl(ids[1]!));
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.keyboard.press('Escape');
    await page.waitForURL(datasetsUrl());
    await page.locator('tr[data-dataset-id]').first().waitFor();

    // Back on the list the same row is highlighted; focused again, Enter opens it.
    await page.locator(`tr[data-dataset-id="${ids[1]}"]`).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(datasetUrl(ids[1]!));
    await page.keyboard.press('Escape');
    await page.waitForURL(datasetsUrl());
  });

  it('/ focuses the search and Esc leaves it; then j/k move the highlight and Enter opens it', async () => {
    const { page } = suite.light;
    await showDatasets(page);
    await page.locator('tr[data-dataset-id] [data-status="FAILED"]').first().waitFor();
    await page.keyboard.press('/');
    await poll(() => focused(page)).toBe('Search datasets');
    await page.keyboard.press('Escape');
    await poll(() => focused(page)).toBe('body');
    // Highlighted by an earlier test, or none (-1): j, j, k ends one row further down.
    const ids = await rowIds(page);
    const before = ids.indexOf((await page.locator('tr.highlighted').getAttribute('data-dataset-id')) ?? '');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    const expected = ids[before + 1]!;
    await poll(() => page.locator('tr.highlighted').getAttribute('data-dataset-id')).toBe(expected);
    await expect(page.getByLabel('Search datasets').inputValue()).resolves.toBe('');
    await page.keyboard.press('Enter');
    await page.waitForURL(datasetUrl(expected));
    await page.keyboard.press('Escape');
    await page.waitForURL(datasetsUrl());
  });

  it.each(['light', 'dark'] as const)(
    'Space and Enter press the status chips; pressed chips pass axe and are readable (%s)',
    async (scheme) => {
      const { page } = scheme === 'light' ? suite.light : suite.dark;
      await showDatasets(page);
      await chip(page, 'FAILED').focus();
      await page.keyboard.press(' ');
      await poll(() => chip(page, 'FAILED').getAttribute('aria-pressed')).toBe('true');
      await poll(() => page.url()).toContain('status=FAILED');
      await chip(page, 'MISSING').focus();
      await page.keyboard.press('Enter');
      await poll(() => chip(page, 'MISSING').getAttribute('aria-pressed')).toBe('true');
      await poll(() => decodeURIComponent(page.url())).toContain('status=FAILED,MISSING');
      const shown = suite.server.snapshot.datasets.filter((record) =>
        ['FAILED', 'MISSING'].includes(record.latestDeliveryStatus ?? ''),
      ).length;
      await poll(() => page.locator('.summary').getAttribute('data-total')).toBe(String(shown));
      await expectAccessible(page, `datasets with pressed chips, ${scheme}`);
      // axe cannot see behind naive-ui's button layers: the pressed chips' text, measured (MISSING focused).
      for (const status of ['FAILED', 'MISSING']) {
        await poll(() => textContrast(chip(page, status).locator('strong'))).toBeGreaterThanOrEqual(4.5);
      }

      await page.getByRole('button', { name: 'All statuses' }).focus();
      await page.keyboard.press('Enter');
      await poll(() => page.url()).toBe(datasetsUrl());
      await poll(() => chip(page, 'FAILED').getAttribute('aria-pressed')).toBe('false');
    },
  );

  it.each(['light', 'dark'] as const)(
    'the filter bar works from the keyboard; filters, no match and a refused filter pass axe (%s)',
    async (scheme) => {
      const { page } = scheme === 'light' ? suite.light : suite.dark;
      await showDatasets(page);
      // A value and Enter adds the default filter (name matches, any case).
      await page.getByLabel('Filter value').focus();
      await page.keyboard.type('no such dataset');
      await page.keyboard.press('Enter');
      const tag = page.locator('[data-filter-tag]');
      await poll(() => tag.textContent()).toContain('datasetName.ilike.*no such dataset*');
      await page.getByText('No dataset matches these filters.').waitFor();
      await expectAccessible(page, `datasets with a filter and no match, ${scheme}`);

      // Tab reaches the tag's remove button; Enter removes the filter.
      const stops = await tabUntil(page, /^Remove filter /, 5);
      expect(stops.at(-1)).toBe('Remove filter datasetName.ilike.*no such dataset*');
      await page.keyboard.press('Enter');
      await poll(() => tag.count()).toBe(0);
      await page.locator('tr[data-dataset-id]').first().waitFor();

      // The selects open with Enter and take an option with the arrows and Enter.
      await page.getByLabel('Search datasets').focus();
      await tabUntil(page, /^Filter field$/, 3);
      await page.keyboard.press('Enter');
      const option = page.locator('.n-base-select-option', { hasText: /^Delivery status$/ });
      await option.waitFor();
      for (let step = 0; !(await option.getAttribute('class'))!.includes('--pending'); step++) {
        expect(step).toBeLessThan(10);
        await page.keyboard.press('ArrowDown');
      }
      await page.keyboard.press('Enter');
      await poll(() => page.getByLabel('Filter field').textContent()).toBe('Delivery status');
      await page.getByLabel('Filter value').focus();
      await page.keyboard.type('BROKEN');
      await page.keyboard.press('Enter');
      await poll(() => page.getByRole('alert').first().textContent()).toMatch(
        /'BROKEN' is not a delivery status/,
      );
      await expectAccessible(page, `datasets with a refused filter, ${scheme}`);
    },
  );

  it.each(['light', 'dark'] as const)(
    'dataset: Enter snoozes and Space removes the snooze; the snoozed page passes axe (%s)',
    async (scheme) => {
      const { page } = scheme === 'light' ? suite.light : suite.dark;
      const { dataset } = failedExample();
      await page.goto(datasetUrl(dataset.datasetId));
      await page.getByText('Notifications are on').waitFor();
      const snooze = page.getByRole('button', { name: 'Snooze for 1 hour' });
      await snooze.focus();
      await page.keyboard.press('Enter');
      await poll(() => snooze.getAttribute('aria-pressed')).toBe('true');
      const section = page.locator('section[aria-labelledby="snooze-title"]');
      await poll(() => section.getByRole('status').textContent()).toMatch(/^\s*Snoozed until/);
      await expectAccessible(page, `dataset, snoozed, ${scheme}`);
      // Text buttons in a status colour, measured (axe cannot see behind naive-ui's button layers).
      const remove = page.getByRole('button', { name: 'Remove snooze' });
      await poll(() => textContrast(remove)).toBeGreaterThanOrEqual(4.5);
      await poll(() => textContrast(snooze)).toBeGreaterThanOrEqual(4.5);
      expect(await tabUntil(page, /^Remove snooze$/, 6)).toContain('Snooze until healthy');
      await page.keyboard.press(' ');
      await page.getByText('Notifications are on').waitFor();
    },
  );

  it('dataset: j/k move through the deliveries, Enter opens one, Esc comes back', async () => {
    const { page } = suite.light;
    const { dataset } = failedExample();
    await page.goto(datasetUrl(dataset.datasetId));
    const rows = page.locator('section[aria-labelledby="history-title"] tbody tr');
    await poll(() => rows.count()).toBe(dataset.deliveryEventList.length);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    const first = dataset.deliveryEventList[0]!;
    await poll(() => page.locator('tr.highlighted').getAttribute('data-delivery-id')).toBe(first.deliveryId);
    await page.keyboard.press('Enter');
    await page.waitForURL(deliveryUrl(dataset.datasetId, first.deliveryId!));
    await page.keyboard.press('Escape');
    await page.waitForURL(datasetUrl(dataset.datasetId));
  });

  it('delivery: Tab reaches the back link, copy buttons and the run-details switch, which Space turns', async () => {
    const { page } = suite.light;
    const { dataset, delivery } = failedExample();
    await page.goto(deliveryUrl(dataset.datasetId, delivery.deliveryId!));
    await page.locator('section[aria-label="Stages"] section[data-stage="dispatch"]').waitFor();
    await page.getByRole('link', { name: 'Dataset Health' }).focus();
    const stops = await tabUntil(page, /^Show run details$/, 12);
    expect(stops).toEqual(
      expect.arrayContaining([`Back to ${dataset.datasetName}`, 'Copy Delivery ID', 'Copy Dataset ID']),
    );
    const toggle = page.getByRole('switch', { name: 'Show run details' });
    await page.keyboard.press(' ');
    await poll(() => toggle.getAttribute('aria-checked')).toBe('true');
    await page.locator('section[aria-labelledby="runs-title"]').waitFor();
    await expectAccessible(page, 'delivery with run details, light');
    await page.keyboard.press(' ');
    await poll(() => toggle.getAttribute('aria-checked')).toBe('false');
  });

  it('settings: Enter on the navigation opens it, Tab reaches the section list, Enter goes to a section', async () => {
    const { page } = suite.light;
    await showDatasets(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/settings(\?|$)/);
    await page.locator('[data-api-url]').waitFor();
    const stops = await tabUntil(page, /^Local API$/, 8);
    expect(stops).toEqual([
      'Sources',
      'Team',
      'Sync intervals',
      'Notifications',
      'Rules',
      'Triage',
      'Local API',
    ]);
    await page.keyboard.press('Enter');
    await poll(() => page.evaluate('document.activeElement?.id')).toBe('settings-api-title');
    // Esc does not leave Settings (unsaved edits, a key shown once).
    await page.keyboard.press('Escape');
    expect(page.url()).toContain('#/settings');
  });

  it.each(['light', 'dark'] as const)(
    'settings: the source form opens, refuses an empty submit and closes by keyboard; it passes axe (%s)',
    async (scheme) => {
      const { page } = scheme === 'light' ? suite.light : suite.dark;
      await page.goto(`${suite.server.base}/#/settings`);
      await page.locator('[data-api-url]').waitFor();
      await page.getByRole('button', { name: 'Add source' }).focus();
      await page.keyboard.press('Enter');
      const name = page.getByLabel('Source name');
      await name.waitFor();
      await name.focus();
      await page.keyboard.press('Enter');
      await poll(() => page.locator('.n-form-item-feedback--error').count()).toBeGreaterThan(0);
      await expectAccessible(page, `settings, source form with errors, ${scheme}`);
      await tabUntil(page, /^Cancel$/, 12);
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Add source' }).waitFor();
    },
  );

  it('settings: a key is created by keyboard and shown once; that page and the key list pass axe', async () => {
    const { page } = suite.light;
    // From the org's datasets, so the new key's org picker starts at it.
    await showDatasets(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-api-url]').waitFor();
    await poll(() => page.getByLabel('Org of the new key').textContent()).toContain(UI_ORG);
    await page.getByLabel('Name of the new key').focus();
    await page.keyboard.type('a11y check');
    await page.keyboard.press('Enter');
    await page.locator('[data-new-key-alert]').waitFor();
    await page.locator('tr[data-key-id]', { hasText: 'a11y check' }).waitFor();
    await expectAccessible(page, 'settings, a new key shown once, light');

    const dark = suite.dark.page;
    // Through the datasets: the dark page may already be on Settings, loaded before the key existed.
    await showDatasets(dark);
    await dark.goto(`${suite.server.base}/#/settings`);
    await dark.locator('tr[data-key-id]', { hasText: 'a11y check' }).waitFor();
    await expectAccessible(dark, 'settings, a key listed, dark');
  });

  it('logged no console errors in either page', () => {
    expect(suite.light.errors).toEqual([]);
    expect(suite.dark.errors).toEqual([]);
  });
});
