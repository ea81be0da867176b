/**
 * Icons, not emoji (issue 23 part 4 point 5, docs/decisions.md), in Chromium against `serve --ui` with
 * imported demo data: a FAILED dataset's timeline holds one entry of every kind and a sync outage, and
 * each draws its icon as an SVG named for screen readers; the datasets table's acknowledged mark and the
 * delivery view's back link are drawn too; no emoji, dingbat or geometric-shape character is left in
 * the text of the timeline, the table or the delivery's header. Light and dark, with axe-core.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { recordLoss, recordRegain } from '../../../electron/store/tables/outages';
import { Store } from '../../../electron/store/database';
import { addTimelineEntry } from '../../../electron/store/tables/timeline';
import type { Snapshot } from '../../../shared/schemas';
import type { TimelineKind } from '../../../shared/timeline';
import { expectAccessible } from '../../helpers/axe';
import { cli } from '../../helpers/cli';
import { UI_NOW, UI_ORG, screenshot, uiSuite } from '../../helpers/ui';

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000 });

/**
 * Characters that draw a symbol rather than write a word: emoji, and the dingbat, technical,
 * geometric-shape and circle-arrow blocks the window used to type (🔔 ⏰ ✓ ↺ ■ ⚠ ●). The arrows
 * ← ↑ → ↓ (U+2190–2193) stay allowed: "FAILED → HEALTHY" is how on-call staff write a change.
 */
const SYMBOLS =
  /[\p{Extended_Pictographic}\u2194-\u21FF\u2300-\u23FF\u25A0-\u25FF\u2600-\u27BF\u2B00-\u2BFF]/gu;

const failed = (snapshot: Snapshot) => snapshot.datasets.find((d) => d.latestDeliveryStatus === 'FAILED')!;
const minutesBefore = (minutes: number) => new Date(UI_NOW.getTime() - minutes * 60_000).toISOString();

/** One entry of every kind on the FAILED dataset's timeline, and a sync outage of the org. */
async function fillTimeline(dataDir: string, snapshot: Snapshot): Promise<void> {
  const { datasetId, deliveryId } = failed(snapshot);
  const store = await Store.open({ dataDir });
  const entry = (minutes: number, kind: TimelineKind, extra = {}) =>
    addTimelineEntry(store, { orgId: UI_ORG, datasetId, at: minutesBefore(minutes), kind, ...extra });
  store.transaction(() => {
    entry(240, 'status', { from: 'HEALTHY', to: 'FAILED', deliveryId });
    entry(239, 'notified', { deliveryId, text: 'FAILED: a delivery failed' });
    entry(200, 'reminded', { deliveryId, text: 'Still failing' });
    entry(190, 'acknowledged', { deliveryId, by: 'kim', text: 'looking' });
    entry(180, 'unacknowledged', { by: 'kim' });
    entry(170, 'acknowledged', { deliveryId, by: 'sam', text: 'on it' });
    entry(160, 'acknowledgement-ended', { text: 'failed again with another delivery' });
  });
  const outage = recordLoss(store, {
    orgId: UI_ORG,
    sourceId: 'acme-remote',
    sourceName: 'Acme remote',
    lastSuccessAt: minutesBefore(235),
    lostAt: minutesBefore(230),
  });
  recordRegain(store, outage.id, minutesBefore(225));
  await store.close();
}

const suite = uiSuite(80, { dark: true, prepare: fillTimeline });

const url = (path: string) => `${suite.server.base}/#/orgs/${UI_ORG}/${path}`;

/** The symbols typed in the text of what `selector` finds (its rendered text). */
function symbolsIn(page: Page, selector: string): Promise<string[]> {
  return page.evaluate(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.innerText).join('\\n').match(${SYMBOLS}) ?? []`,
  );
}

/** Each timeline entry: its kind, and its icon's name and label (null: none drawn). */
function timelineIcons(page: Page) {
  return page.locator('section[aria-labelledby="timeline-title"] li').evaluateAll((items) =>
    items.map((item) => {
      const icon = item.querySelector('.icon svg');
      return {
        kind: item.getAttribute('data-kind'),
        icon: icon?.getAttribute('data-icon') ?? null,
        role: icon?.getAttribute('role') ?? null,
        label: icon?.getAttribute('aria-label') ?? null,
      };
    }),
  );
}

describe('icons, not emoji', { timeout: 90_000 }, () => {
  it('the timeline draws an SVG icon, named, for every kind of entry', async () => {
    const { page } = suite.light;
    await page.waitForURL(/#\/orgs\/[^/]+\/triage/, { timeout: 30_000 });
    await page.goto(url(`datasets/${encodeURIComponent(failed(suite.server.snapshot).datasetId)}`));
    await poll(async () => (await timelineIcons(page)).length).toBe(8);
    expect(await timelineIcons(page)).toEqual([
      { kind: 'acknowledgement-ended', icon: 'stop', role: 'img', label: 'End' },
      { kind: 'acknowledged', icon: 'check', role: 'img', label: 'Acknowledgement' },
      { kind: 'unacknowledged', icon: 'undo', role: 'img', label: 'Withdrawal' },
      { kind: 'acknowledged', icon: 'check', role: 'img', label: 'Acknowledgement' },
      { kind: 'reminded', icon: 'alarm', role: 'img', label: 'Reminder' },
      { kind: 'outage', icon: 'warning', role: 'img', label: 'Sync outage' },
      { kind: 'notified', icon: 'bell', role: 'img', label: 'Notification' },
      { kind: 'status', icon: 'dot', role: 'img', label: 'Status FAILED' },
    ]);
    // Drawn, in the entry's tone: something is painted in each icon's box.
    const boxes = await page
      .locator('section[aria-labelledby="timeline-title"] li .icon svg')
      .evaluateAll((icons) => icons.map((icon) => icon.getBoundingClientRect().width));
    for (const width of boxes) expect(width).toBeGreaterThan(8);
    expect(await symbolsIn(page, 'section[aria-labelledby="timeline-title"]')).toEqual([]);
    await screenshot(page, 'timeline-icons-light');
    await expectAccessible(page, 'dataset view, timeline icons, light');
    const dark = suite.dark.page;
    await dark.goto(url(`datasets/${encodeURIComponent(failed(suite.server.snapshot).datasetId)}`));
    await poll(async () => (await timelineIcons(dark)).length).toBe(8);
    await screenshot(dark, 'timeline-icons-dark');
    await expectAccessible(dark, 'dataset view, timeline icons, dark');
  });

  it('the datasets table marks an acknowledgement with a drawn check, named for screen readers', async () => {
    const { page } = suite.light;
    const { datasetId } = failed(suite.server.snapshot);
    const ack = await cli(['ack', datasetId, '--by', 'sam', '--data-dir', suite.server.dataDir]);
    expect(ack.code, ack.stderr).toBe(0);
    await page.goto(url('datasets?status=FAILED,MISSING'));
    const mark = page.locator(`tr[data-dataset-id="${datasetId}"] [data-acknowledged-by]`);
    await mark.waitFor({ timeout: 20_000 });
    expect(await mark.getAttribute('role')).toBe('img');
    expect(await mark.getAttribute('aria-label')).toMatch(/^Acknowledged by sam at /);
    expect(await mark.locator('svg[data-icon="check"]').count()).toBe(1);
    await poll(() => page.locator('tr[data-dataset-id]').count()).toBeGreaterThan(3);
    expect(await symbolsIn(page, '.datasets-table')).toEqual([]);
  });

  it("the delivery view's back link draws its arrow", async () => {
    const { page } = suite.light;
    const { datasetId, deliveryId, datasetName } = failed(suite.server.snapshot);
    await page.goto(
      url(`datasets/${encodeURIComponent(datasetId)}/deliveries/${encodeURIComponent(deliveryId!)}`),
    );
    const back = page.locator('a.back');
    await back.waitFor({ timeout: 20_000 });
    expect(await back.locator('svg[data-icon="arrow-left"]').count()).toBe(1);
    await expect(page.getByRole('link', { name: `Back to ${datasetName}` }).count()).resolves.toBe(1);
    expect(await symbolsIn(page, 'article.delivery > header')).toEqual([]);
  });

  it('logged no console errors', () => {
    expect(suite.light.errors).toEqual([]);
    expect(suite.dark.errors).toEqual([]);
  });
});
