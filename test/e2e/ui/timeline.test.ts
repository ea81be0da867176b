/**
 * The dataset view's triage and timeline, and the delivery view's acknowledgement, in Chromium against
 * `serve --ui` with imported demo data (docs/architecture.md#timeline): a FAILED dataset acknowledged, withdrawn and
 * acknowledged again through `dataset-health ack`/`unack` on the running instance shows its cause
 * (linking to Triage), the acknowledgement in force with its note, and those three entries newest first;
 * an untouched dataset says its timeline is empty. Light and dark, with axe-core on each and
 * screenshots: dataset-timeline-light, dataset-timeline-dark.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { DatasetRecord } from '../../../shared/schemas';
import { expectAccessible } from '../../helpers/axe';
import { cli } from '../../helpers/cli';
import { UI_ORG, screenshot, uiSuite } from '../../helpers/ui';

const suite = uiSuite(300, { dark: true });
// Generous: the server and Chromium share two cores with other test runs.
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000 });

const datasetUrl = (datasetId: string) =>
  `${suite.server.base}/#/orgs/${UI_ORG}/datasets/${encodeURIComponent(datasetId)}`;

const byName = (a: DatasetRecord, b: DatasetRecord) =>
  (a.datasetName ?? '') < (b.datasetName ?? '') ? -1 : 1;
const failed = () =>
  suite.server.snapshot.datasets.filter((r) => r.latestDeliveryStatus === 'FAILED').sort(byName)[0]!;
const healthy = () => suite.server.snapshot.datasets.find((r) => r.latestDeliveryStatus === 'HEALTHY')!;

async function run(args: string[]): Promise<void> {
  const result = await cli([...args, '--data-dir', suite.server.dataDir]);
  expect(result.code, result.stderr).toBe(0);
}

const timelineEntries = (page: Page) =>
  page
    .locator('section[aria-labelledby="timeline-title"] li')
    .evaluateAll((items) =>
      items.map((item) => [item.getAttribute('data-kind'), item.textContent!.replace(/\s+/g, ' ').trim()]),
    );

describe('dataset view: triage and timeline', { timeout: 90_000 }, () => {
  it('shows the cause, the acknowledgement in force and the timeline newest first', async () => {
    const { page } = suite.light;
    // The window first lands on Triage (the demo has failures): let that happen before going elsewhere.
    await page.waitForURL(/#\/orgs\/[^/]+\/triage/, { timeout: 30_000 });
    await suite.dark.page.waitForURL(/#\/orgs\/[^/]+\/triage/, { timeout: 30_000 });
    const dataset = failed();
    await run(['ack', dataset.datasetId, '--note', 'first look', '--by', 'kim']);
    await run(['unack', dataset.datasetId, '--by', 'kim']);
    await run(['ack', dataset.datasetId, '--note', 'supplier rotating keys, ETA 06:00', '--by', 'sam']);

    await page.goto(datasetUrl(dataset.datasetId));
    const triage = page.locator('[data-dataset-triage]');
    await triage.waitFor({ timeout: 20_000 });
    const link = triage.locator('[data-cause-link]');
    const incidentId = await triage.getAttribute('data-incident-id');
    expect(await link.getAttribute('href')).toBe(
      `#/orgs/${UI_ORG}/triage?incident=${encodeURIComponent(incidentId!)}`,
    );
    await poll(() => triage.locator('[data-ack-badge]').textContent()).toMatch(/^\s*sam is on it/);
    expect(await triage.textContent()).toContain('supplier rotating keys, ETA 06:00');

    await poll(() => timelineEntries(page)).toHaveLength(3);
    const entries = await timelineEntries(page);
    expect(entries.map(([kind]) => kind)).toEqual(['acknowledged', 'unacknowledged', 'acknowledged']);
    expect(entries[0]![1]).toContain('Acknowledged by sam');
    expect(entries[0]![1]).toContain('“supplier rotating keys, ETA 06:00”');
    expect(entries[1]![1]).toContain('Acknowledgement withdrawn by kim');
    expect(entries[2]![1]).toContain('“first look”');
    // Each entry has its time, machine-readable, and the exact time beside the relative one.
    const times = await page
      .locator('section[aria-labelledby="timeline-title"] li time')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('datetime')));
    expect(times).toHaveLength(3);
    expect([...times].sort().reverse()).toEqual(times);

    await expectAccessible(page, 'dataset view with triage and timeline (light)');
    await screenshot(page, 'dataset-timeline-light');

    const dark = suite.dark.page;
    await dark.goto(datasetUrl(dataset.datasetId));
    await dark.locator('[data-dataset-triage] [data-ack-badge]').waitFor({ timeout: 20_000 });
    await poll(() => timelineEntries(dark)).toHaveLength(3);
    await expectAccessible(dark, 'dataset view with triage and timeline (dark)');
    await screenshot(dark, 'dataset-timeline-dark');
  });

  it('the cause link opens Triage on that incident', async () => {
    const { page } = suite.light;
    await page.goto(datasetUrl(failed().datasetId));
    const triage = page.locator('[data-dataset-triage]');
    await triage.waitFor({ timeout: 20_000 });
    const incidentId = (await triage.getAttribute('data-incident-id'))!;
    await triage.locator('[data-cause-link]').click();
    await poll(() => decodeURIComponent(page.url())).toContain(
      `/orgs/${UI_ORG}/triage?incident=${incidentId}`,
    );
  });

  it('the failed delivery shows the acknowledgement too', async () => {
    const { page } = suite.light;
    await page.goto(datasetUrl(failed().datasetId));
    const triage = page.locator('[data-dataset-triage]');
    await triage.waitFor({ timeout: 20_000 });
    await triage
      .getByRole('link', { name: /^dlv-|^[\w-]+$/ })
      .last()
      .click();
    const section = page.locator('[data-delivery-acknowledgement]');
    await poll(() => section.locator('[data-ack-badge]').textContent()).toMatch(/sam is on it/);
    expect(await section.textContent()).toContain('supplier rotating keys, ETA 06:00');
  });

  it('says so when nothing is recorded for a dataset, and shows no triage for a healthy one', async () => {
    const { page } = suite.light;
    await page.goto(datasetUrl(healthy().datasetId));
    await page.locator('[data-timeline-empty]').waitFor({ timeout: 20_000 });
    expect(await page.locator('[data-dataset-triage]').count()).toBe(0);
  });

  it('logged no console errors', () => {
    expect(suite.light.errors).toEqual([]);
    expect(suite.dark.errors).toEqual([]);
  });
});
