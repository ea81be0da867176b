/**
 * Accessibility of the window in Chromium against `serve --ui` with imported data (docs/accessibility.md):
 * axe-core finds no serious or critical WCAG 2.0/2.1 A or AA violation on any view, light or dark.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { STAGES } from '../../../shared/status';
import type { DatasetRecord, DeliveryEvent } from '../../../shared/schemas';
import { expectAccessible } from '../../helpers/axe';
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
      // `/` opens the org's datasets.
      await page.goto(`${suite.server.base}/#/`);
      await page.waitForURL(datasetsUrl());
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

  it('logged no console errors in either page', () => {
    expect(suite.light.errors).toEqual([]);
    expect(suite.dark.errors).toEqual([]);
  });
});
