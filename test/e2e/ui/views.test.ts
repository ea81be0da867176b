/**
 * The dataset and delivery views in Chromium against `serve --ui` with imported data: from the datasets
 * table to a FAILED dataset (heading, delivery history, schedule in words), on to its latest failed
 * delivery (the failed task's code and message above the stages, run ids on request, copy buttons), Esc
 * back; and screenshots of the datasets, dataset, delivery and settings views in light and dark.
 */
import cronstrue from 'cronstrue';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { DatasetRecord, DeliveryEvent, Task } from '../../../shared/schemas';
import { cronerPattern } from '../../../shared/schedule';
import { STAGES } from '../../../shared/status';
import { UI_ORG, screenshot, uiSuite } from '../../helpers/ui';

/** Waits for a value: the server and the browser share the machine with other tests, so not just 1 s. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 10_000 });

const suite = uiSuite(300, { dark: true });

const byDeadline = (a: DeliveryEvent, b: DeliveryEvent): number =>
  Date.parse(b.deliveryDeadline ?? '') - Date.parse(a.deliveryDeadline ?? '');

/** The dataset's newest FAILED delivery in the snapshot, if it has one with an id. */
function latestFailed(record: DatasetRecord): DeliveryEvent | undefined {
  return record.deliveryEventList
    .filter((event) => event.status === 'FAILED' && event.deliveryId !== null)
    .sort(byDeadline)[0];
}

/** The first FAILED task of the delivery's tasks in the snapshot, stages in order. */
function failedTask(deliveryId: string): Task | undefined {
  const tasks = suite.server.snapshot.tasks?.[deliveryId];
  return tasks && STAGES.flatMap((stage) => tasks[stage].tasks).find((task) => task.status === 'FAILED');
}

const record = (datasetId: string): DatasetRecord =>
  suite.server.snapshot.datasets.find((candidate) => candidate.datasetId === datasetId)!;

async function visibleIds(page: Page): Promise<string[]> {
  return page
    .locator('tr[data-dataset-id]')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-dataset-id')!));
}

const datasetsUrl = () => `${suite.server.base}/#/orgs/${UI_ORG}/datasets`;
const datasetUrl = (datasetId: string) => `${datasetsUrl()}/${encodeURIComponent(datasetId)}`;
const deliveryUrl = (datasetId: string, deliveryId: string) =>
  `${datasetUrl(datasetId)}/deliveries/${encodeURIComponent(deliveryId)}`;

const history = (page: Page): Locator => page.locator('section[aria-labelledby="history-title"]');
const failures = (page: Page): Locator => page.locator('section[aria-label="Failure reasons"]');
const stages = (page: Page): Locator => page.locator('section[aria-label="Stages"]');

/** A screenshot once the toasts of earlier steps (the copy buttons') are gone. */
async function shoot(page: Page, name: string): Promise<void> {
  await poll(() => page.locator('.n-message').count()).toBe(0);
  await screenshot(page, name);
}

/** The FAILED dataset the flow opens, its latest failed delivery and that delivery's failed task. */
let chosen: { dataset: DatasetRecord; delivery: DeliveryEvent; task: Task };

describe('dataset and delivery views', () => {
  it('status sort puts FAILED first; clicking a FAILED dataset opens its page', async () => {
    const { page } = suite.light;
    // The window lands on Triage (the demo has FAILED datasets); the datasets are one link away.
    await page.waitForURL(`${suite.server.base}/#/orgs/${UI_ORG}/triage`, { timeout: 20_000 });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Datasets' }).click();
    await page.locator('tr[data-dataset-id]').first().waitFor({ timeout: 20_000 });
    expect(page.url()).toBe(datasetsUrl());
    await poll(() => page.getByLabel('Sort').textContent()).toContain('Status: worst first');
    const ids = await visibleIds(page);
    expect(record(ids[0]!).latestDeliveryStatus).toBe('FAILED');
    await poll(() =>
      page.locator('tr[data-dataset-id]').first().locator('[data-status]').getAttribute('data-status'),
    ).toBe('FAILED');
    // The first FAILED row whose latest failed delivery has a FAILED task in the snapshot's tasks.
    const id = ids.find((candidate) => {
      const delivery = latestFailed(record(candidate));
      return (
        record(candidate).latestDeliveryStatus === 'FAILED' && delivery && failedTask(delivery.deliveryId!)
      );
    });
    expect(id).toBeDefined();
    const dataset = record(id!);
    const delivery = latestFailed(dataset)!;
    chosen = { dataset, delivery, task: failedTask(delivery.deliveryId!)! };

    await page.locator(`tr[data-dataset-id="${id}"]`).click();
    await page.waitForURL(datasetUrl(dataset.datasetId));
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(dataset.datasetName);
  });

  it('the dataset page lists every delivery of the history, newest first, and the schedule in words', async () => {
    const { page } = suite.light;
    const { dataset } = chosen;
    const rows = history(page).locator('tbody tr');
    await poll(() => rows.count()).toBe(dataset.deliveryEventList.length);
    // Row by row the same deliveries, in the same order, with the same statuses as the snapshot.
    const shown = await rows.evaluateAll((trs) =>
      trs.map((tr) => ({
        deliveryId: tr.getAttribute('data-delivery-id'),
        status: tr.querySelector('[data-status]')?.getAttribute('data-status') ?? null,
      })),
    );
    expect(shown).toEqual(
      dataset.deliveryEventList.map((event) => ({
        deliveryId: event.deliveryId,
        status: event.status ?? 'NONE',
      })),
    );
    expect([...dataset.deliveryEventList].sort(byDeadline)).toEqual(dataset.deliveryEventList);
    await expect(history(page).locator('.hint').textContent()).resolves.toContain(
      `${dataset.deliveryEventList.length} deliveries retained`,
    );

    // In words as cronstrue says the schedule (24-hour), in the dataset's zone.
    const config = dataset.currentProcessingDeadlineConfig;
    const words = cronstrue.toString(cronerPattern(config)!, { use24HourTimeFormat: true });
    expect(words).toMatch(/^At /);
    await poll(() =>
      page.locator('section[aria-labelledby="schedule-title"] .words').textContent(),
    ).toContain(`${words}, ${config.timezone || 'UTC'} time`);
    await expect(page.getByRole('button', { name: 'Copy Dataset ID' }).isVisible()).resolves.toBe(true);
  });

  it('clicking the failed delivery opens it: the failed task’s code and message in an alert above the stages', async () => {
    const { page } = suite.light;
    const { dataset, delivery, task } = chosen;
    const row = history(page).locator(`tr[data-delivery-id="${delivery.deliveryId}"]`);
    await expect(row.locator('[data-status]').getAttribute('data-status')).resolves.toBe('FAILED');
    await row.locator('code').click();
    await page.waitForURL(deliveryUrl(dataset.datasetId, delivery.deliveryId!));
    await poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(
      `Delivery ${delivery.deliveryId}`,
    );

    const alert = failures(page).getByRole('alert').filter({ hasText: task.message! });
    await alert.waitFor();
    const text = await alert.textContent();
    expect(text).toContain(task.shortCode!);
    expect(text).toContain(task.message!);
    expect(text).toContain('failed');
    // Prominent: before the stages, higher on the page.
    const [alertBox, stagesBox] = await Promise.all([alert.boundingBox(), stages(page).boundingBox()]);
    expect(alertBox!.y + alertBox!.height).toBeLessThanOrEqual(stagesBox!.y);

    const shownStages = await stages(page)
      .locator('section[data-stage]')
      .evaluateAll((sections) => sections.map((section) => section.getAttribute('data-stage')));
    expect(shownStages).toEqual(['ingest', 'normalize', 'process', 'dispatch']);
    for (const label of ['Ingest', 'Normalize', 'Process', 'Dispatch']) {
      await expect(stages(page).getByRole('heading', { level: 3, name: label }).isVisible()).resolves.toBe(
        true,
      );
    }
    // The failed task is also in its stage's table, with its code.
    await expect(stages(page).locator('code', { hasText: task.shortCode! }).count()).resolves.toBeGreaterThan(
      0,
    );
  });

  it('"Show run details" reveals the run ids', async () => {
    const { page } = suite.light;
    const tasks = suite.server.snapshot.tasks![chosen.delivery.deliveryId!]!;
    const runIds = [
      ...new Set(
        STAGES.flatMap((stage) => tasks[stage].tasks.map((task) => task.details.runId ?? null)).filter(
          (runId): runId is string => runId !== null,
        ),
      ),
    ];
    expect(runIds.length).toBeGreaterThan(0);
    await expect(page.getByText(runIds[0]!, { exact: true }).count()).resolves.toBe(0);
    await expect(stages(page).getByRole('columnheader', { name: 'Run ID' }).count()).resolves.toBe(0);

    const toggle = page.getByRole('switch', { name: 'Show run details' });
    await toggle.click();
    await poll(() => toggle.getAttribute('aria-checked')).toBe('true');
    for (const runId of runIds) {
      await poll(() => stages(page).getByText(runId, { exact: true }).count()).toBeGreaterThan(0);
    }
    await poll(() => stages(page).getByRole('columnheader', { name: 'Run ID' }).count()).toBe(4);
    await expect(page.locator('section[aria-labelledby="runs-title"]').isVisible()).resolves.toBe(true);
  });

  it('copy buttons copy the delivery and dataset ids', async () => {
    const { page, context } = suite.light;
    const { dataset, delivery } = chosen;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.server.base });
    for (const [label, value] of [
      ['Delivery ID', delivery.deliveryId!],
      ['Dataset ID', dataset.datasetId],
    ] as const) {
      const button = page.getByRole('button', { name: `Copy ${label}`, exact: true });
      await button.click();
      await poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(value);
      await poll(() => page.getByText(`${label} copied`, { exact: true }).count()).toBeGreaterThan(0);
    }
  });

  it('Esc goes back to the dataset, then to the datasets', async () => {
    const { page } = suite.light;
    const { dataset } = chosen;
    await page.keyboard.press('Escape');
    await page.waitForURL(datasetUrl(dataset.datasetId));
    await poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(dataset.datasetName);
    await page.keyboard.press('Escape');
    await page.waitForURL(datasetsUrl());
    await page.locator('tr[data-dataset-id]').first().waitFor();
  });

  it.each(['light', 'dark'] as const)('screenshots of each view, %s', async (scheme) => {
    const { page } = scheme === 'light' ? suite.light : suite.dark;
    const { dataset, delivery, task } = chosen;

    await page.goto(datasetsUrl());
    await page.locator('tr[data-dataset-id]').first().waitFor({ timeout: 20_000 });
    await poll(() => page.locator('.summary').textContent()).toMatch(/^[\d,]+ datasets/);
    await shoot(page, `datasets-${scheme}`);

    await page.goto(datasetUrl(dataset.datasetId));
    await poll(() => history(page).locator('tbody tr').count()).toBe(dataset.deliveryEventList.length);
    await shoot(page, `dataset-${scheme}`);

    await page.goto(deliveryUrl(dataset.datasetId, delivery.deliveryId!));
    await failures(page).getByRole('alert').filter({ hasText: task.message! }).waitFor();
    await stages(page).locator('section[data-stage="dispatch"]').waitFor();
    await shoot(page, `delivery-${scheme}`);

    await page.goto(`${suite.server.base}/#/settings`);
    await page.getByRole('heading', { level: 2, name: 'Sources' }).waitFor();
    await page.locator('[data-api-url]').waitFor();
    await shoot(page, `settings-${scheme}`);

    // The colour scheme took: naive-ui's suite.dark theme paints the body suite.dark.
    const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    const [r, g, b] = String(background).match(/\d+/g)!.map(Number);
    expect((r! + g! + b!) / 3 < 128).toBe(scheme === 'dark');
  });

  it('logged no console errors in either page', () => {
    expect(suite.light.errors).toEqual([]);
    expect(suite.dark.errors).toEqual([]);
  });
});
