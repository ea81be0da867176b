/**
 * The datasets view's triage parts in Chromium against `serve --ui` with imported demo data
 * (docs/architecture.md#incidents): the Cause column against a reference worked out from the snapshot (first failed task of the
 * newest FAILED delivery; unknown without tasks; MISSING by supplier), the acknowledged check mark after
 * `dataset-health ack` through the running instance, the "Unacknowledged only" and "Cause" filters with
 * their counts, and both kept in the URL across a reload. Screenshot: datasets-causes-light (the FAILED and
 * MISSING rows, the first one acknowledged).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { UNKNOWN_CAUSE_ID, failedCauseId, firstFailure, missingCauseId } from '../../../shared/causes';
import type { DatasetRecord } from '../../../shared/schemas';
import { cli } from '../../helpers/cli';
import { UI_ORG, screenshot, uiSuite } from '../../helpers/ui';

const suite = uiSuite(300);
// Generous: the server and Chromium share two cores with other test runs.
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000 });

/** The cause the engine must give a record, worked out from the snapshot alone. */
function expectedCause(record: DatasetRecord): string | null {
  if (record.latestDeliveryStatus === 'MISSING') return missingCauseId(record.supplier.id);
  if (record.latestDeliveryStatus !== 'FAILED') return null;
  const failed = record.deliveryEventList
    .filter((event) => event.status === 'FAILED')
    .sort(
      (a, b) =>
        Date.parse(b.deliveryDeadline ?? '') - Date.parse(a.deliveryDeadline ?? '') ||
        Date.parse(b.deliveredAt ?? '') - Date.parse(a.deliveredAt ?? ''),
    )[0];
  const deliveryId = failed?.deliveryId ?? record.deliveryId;
  const tasks = deliveryId ? suite.server.snapshot.tasks?.[deliveryId] : undefined;
  const failure = tasks ? firstFailure(tasks) : null;
  return failure ? failedCauseId(failure.stage, failure.shortCode) : UNKNOWN_CAUSE_ID;
}

const records = () => suite.server.snapshot.datasets;
const troubled = () => records().filter((r) => expectedCause(r) !== null);

async function shownTotal(page: Page, expected: number): Promise<void> {
  await poll(async () =>
    (await page.locator('.summary').textContent())?.match(/^([\d,]+) dataset/)?.[1]?.replace(/,/g, ''),
  ).toBe(String(expected));
  await poll(() => page.locator('.summary').getAttribute('data-rows')).toBe(String(expected));
}

async function visibleCauses(page: Page): Promise<[string, string | null][]> {
  return page
    .locator('tr[data-dataset-id]')
    .evaluateAll((rows) =>
      rows.map((row) => [
        row.getAttribute('data-dataset-id')!,
        row.querySelector('[data-cause-id]')?.getAttribute('data-cause-id') ?? null,
      ]),
    );
}

const datasetsUrl = (query = '') => `${suite.server.base}/#/orgs/${UI_ORG}/datasets${query}`;

describe('datasets view: causes and acknowledgements', { timeout: 90_000 }, () => {
  let acknowledged: DatasetRecord;

  it('shows each FAILED and MISSING row’s cause, as the snapshot says it must be', async () => {
    const { page } = suite.light;
    // The window first lands on Triage (the demo has failures): let that happen before going elsewhere.
    await page.waitForURL(/#\/orgs\/[^/]+\/triage/, { timeout: 30_000 });
    await page.goto(datasetsUrl('?status=FAILED,MISSING'));
    await shownTotal(page, troubled().length);
    const shown = await visibleCauses(page);
    expect(shown.length).toBeGreaterThan(5);
    // Worst first, then by name: the first row is a FAILED one, acknowledged next (and in the screenshot).
    acknowledged = records().find((r) => r.datasetId === shown[0]![0])!;
    expect(acknowledged.latestDeliveryStatus).toBe('FAILED');
    const expected = new Map(records().map((r) => [r.datasetId, expectedCause(r)]));
    for (const [id, cause] of shown) expect(cause).toBe(expected.get(id));
    // The cause's title is the column's text.
    const first = page.locator('tr[data-dataset-id] [data-cause-id]').first();
    await expect(first.textContent()).resolves.toMatch(/failed: |cause not known yet|MISSING from /);
  });

  it('marks an acknowledged row with a check mark naming who, when and the note', async () => {
    const { page } = suite.light;
    const ack = await cli([
      'ack',
      acknowledged.datasetId,
      '--note',
      'supplier rotating keys',
      '--by',
      'sam',
      '--data-dir',
      suite.server.dataDir,
    ]);
    expect(ack.code, ack.stderr).toBe(0);
    await page.goto(datasetsUrl(`?q=${encodeURIComponent(acknowledged.datasetId)}`));
    await shownTotal(page, 1);
    const badge = page.locator(`tr[data-dataset-id="${acknowledged.datasetId}"] [data-acknowledged-by]`);
    await poll(() => badge.getAttribute('data-acknowledged-by')).toBe('sam');
    expect(await badge.getAttribute('aria-label')).toMatch(
      /^Acknowledged by sam at .+: supplier rotating keys$/,
    );
    // A drawn check (no typed glyph), the badge's label its name.
    expect(await badge.locator('svg[data-icon="check"][aria-hidden="true"]').count()).toBe(1);
    expect(await badge.textContent()).toBe('');
    await page.goto(datasetsUrl('?status=FAILED,MISSING'));
    await shownTotal(page, troubled().length);
    await page.locator(`tr[data-dataset-id="${acknowledged.datasetId}"] [data-acknowledged-by]`).waitFor();
    await screenshot(page, 'datasets-causes-light');
  });

  it('"Unacknowledged only" leaves the troubled datasets nobody owns, and the URL keeps it', async () => {
    const { page } = suite.light;
    await page.goto(datasetsUrl());
    await page.locator('tr[data-dataset-id]').first().waitFor();
    // By keyboard: the checkbox is a Tab stop that Space turns.
    await page.getByRole('checkbox', { name: 'Unacknowledged only' }).focus();
    await page.keyboard.press(' ');
    await poll(() => page.url()).toContain('unack=1');
    const expected = troubled().length - 1;
    await shownTotal(page, expected);
    const ids = (await visibleCauses(page)).map(([id]) => id);
    expect(ids).not.toContain(acknowledged.datasetId);
    await page.reload();
    await shownTotal(page, expected);
    expect(await page.getByRole('checkbox', { name: 'Unacknowledged only' }).isChecked()).toBe(true);
  });

  it('"Cause" narrows to one cause, chosen from the org’s causes; reload keeps it; clearing shows all', async () => {
    const { page } = suite.light;
    const counts = new Map<string, number>();
    for (const r of troubled()) counts.set(expectedCause(r)!, (counts.get(expectedCause(r)!) ?? 0) + 1);
    const [causeId, count] = [...counts.entries()]
      .filter(([id]) => !id.startsWith('missing:') && id !== UNKNOWN_CAUSE_ID)
      .sort((a, b) => b[1] - a[1])[0]!;
    await page.goto(datasetsUrl());
    await page.locator('tr[data-dataset-id]').first().waitFor();
    await page.locator('[data-cause]').click();
    const option = page.locator('.n-base-select-option', { hasText: `(${count})` }).first();
    await page.locator('[data-cause] input').fill(causeId.split(':')[1]!);
    await option.click();
    await poll(() => decodeURIComponent(page.url())).toContain(`cause=${causeId}`);
    await shownTotal(page, count);
    for (const [, cause] of await visibleCauses(page)) expect(cause).toBe(causeId);
    await page.reload();
    await shownTotal(page, count);
    // Both filters at once: the acknowledged one of the cause (if it is) drops out.
    await page.getByRole('checkbox', { name: 'Unacknowledged only' }).click();
    const unacknowledged = count - (expectedCause(acknowledged) === causeId ? 1 : 0);
    await shownTotal(page, unacknowledged);
    await page.goto(datasetsUrl());
    await shownTotal(page, records().length);
  });

  it('a typed cause id the grammar refuses is explained and changes nothing', async () => {
    const { page } = suite.light;
    await page.goto(datasetsUrl('?status=FAILED'));
    await page.locator('tr[data-dataset-id]').first().waitFor();
    const before = page.url();
    await page.locator('[data-cause]').click();
    await page.locator('[data-cause] input').fill('bogus:E_X');
    await page.keyboard.press('Enter');
    await expect(
      page.getByRole('alert').filter({ hasText: "unknown stage 'bogus'" }).textContent(),
    ).resolves.toContain('allowed: ingest, normalize, process, dispatch, missing');
    expect(page.url()).toBe(before);
  });

  it('logged no console errors', () => {
    expect(suite.light.errors).toEqual([]);
  });
});
