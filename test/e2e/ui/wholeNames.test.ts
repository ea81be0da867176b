/**
 * Names and acknowledgements shown whole, in Chromium against `serve --ui` with imported demo data in
 * which one FAILED dataset has a name of 61 characters (issue 23 part 4 points 2–4, docs/decisions.md):
 * - the datasets table gives the name the room at 1280 px (far more than the ~20 characters it had
 *   while the cause took the width), and the whole name shows on hover and on the focused row;
 * - Reliability by dataset tells datasets of the same name apart (three share one here): the supplier
 *   and the dataset id beside each name, and the search finds the supplier;
 * - an acknowledgement's badge says who and when in full (a long name wraps), in a Triage row at 1280 px
 *   too; the note on hover and on a line of its own there, written out in the dataset view.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { DatasetRecord } from '../../../shared/schemas';
import { expectAccessible } from '../../helpers/axe';
import { cli } from '../../helpers/cli';
import { UI_ORG, screenshot, uiSuite } from '../../helpers/ui';

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000 });

const LONG_NAME = 'Eurozone Sovereign Bond Reference Data Morning Snapshot (v2) X';
/** The FAILED dataset that gets the long name. */
const longNamed = (datasets: DatasetRecord[]) => datasets.find((d) => d.latestDeliveryStatus === 'FAILED')!;

/** A name three datasets of three suppliers share, as products per region often do. */
const SHARED_NAME = 'Daily Reference Prices';
function shareOneName(datasets: DatasetRecord[]): void {
  const suppliers = new Set<string>();
  for (const dataset of datasets) {
    if (suppliers.size === 3) break;
    const supplier = dataset.supplier.id;
    if (dataset === longNamed(datasets) || supplier === null || suppliers.has(supplier)) continue;
    suppliers.add(supplier);
    dataset.datasetName = SHARED_NAME;
  }
}

const suite = uiSuite(120, {
  dark: true,
  edit: (snapshot) => {
    longNamed(snapshot.datasets).datasetName = LONG_NAME;
    shareOneName(snapshot.datasets);
  },
});

const url = (path: string) => `${suite.server.base}/#/orgs/${UI_ORG}/${path}`;

/** A link followed from outside: a new document, nothing kept from the last visit. */
async function follow(page: Page, path: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(url(path));
}

interface TextBox {
  text: string;
  /** How many of its characters can be seen (the box's width over the text's, in characters). */
  shownCharacters: number;
  /** Nothing cut: the text fits its box, and the box is inside the window. */
  whole: boolean;
}

/** What the element `selector` finds shows of its text. (Page code as text: this file has Node's globals.) */
function textBox(page: Page, selector: string): Promise<TextBox> {
  return page.evaluate(`((element) => {
    const box = element.getBoundingClientRect();
    const text = element.textContent;
    const shown = Math.min(1, element.clientWidth / element.scrollWidth);
    return {
      text,
      shownCharacters: Math.floor(shown * text.length),
      whole:
        element.scrollWidth <= element.clientWidth + 1 &&
        element.scrollHeight <= element.clientHeight + 1 &&
        box.left >= 0 && box.right <= innerWidth && box.top >= 0 && box.bottom <= innerHeight,
    };
  })(document.querySelector(${JSON.stringify(selector)}))`);
}

describe('the datasets table gives the name the room', { timeout: 90_000 }, () => {
  const rowSelector = () => `tr[data-dataset-id="${longNamed(suite.server.snapshot.datasets).datasetId}"]`;
  const row = (page: Page) => page.locator(rowSelector());
  const NAME = () => `${rowSelector()} [data-dataset-name] > span`;

  it('at 1280 px: the name column is the widest, the long name is not cut at ~20 characters', async () => {
    const { page } = suite.light;
    await page.waitForURL(/#\/orgs\/[^/]+\/triage/, { timeout: 30_000 });
    await page.setViewportSize({ width: 1280, height: 800 });
    await follow(page, 'datasets');
    await row(page).waitFor({ timeout: 20_000 });
    const widths = await page
      .locator('.datasets-table thead th')
      .evaluateAll((cells) => cells.map((cell) => [cell.textContent!.trim(), cell.clientWidth] as const));
    const name = widths.find(([title]) => title === 'Name')![1];
    for (const [title, width] of widths) if (title !== 'Name') expect(width, title).toBeLessThan(name);
    // Nothing scrolls sideways at 1280 px.
    expect(
      await page.locator('.datasets-table .n-data-table-base-table-body').evaluate((body) => {
        const scroller = body.querySelector('.v-vl') ?? body;
        return scroller.scrollWidth - scroller.clientWidth;
      }),
    ).toBeLessThanOrEqual(1);
    const shown = await textBox(page, NAME());
    expect(shown.text).toBe(LONG_NAME);
    expect(shown.shownCharacters).toBeGreaterThanOrEqual(35);
    await screenshot(page, 'datasets-long-name-1280');
  });

  it('shows the whole name on hover', async () => {
    const { page } = suite.light;
    await page.locator(NAME()).hover();
    await poll(async () => (await textBox(page, NAME())).whole).toBe(true);
    await page.mouse.move(0, 0);
    await poll(async () => (await textBox(page, NAME())).whole).toBe(false);
  });

  it('shows the whole name on the row the keyboard is on (Tab, then j/k)', async () => {
    const { page } = suite.light;
    await follow(page, 'datasets');
    await row(page).waitFor({ timeout: 20_000 });
    const ids = await page
      .locator('tr[data-dataset-id]')
      .evaluateAll((rows) => rows.map((each) => each.getAttribute('data-dataset-id')!));
    const target = ids.indexOf(longNamed(suite.server.snapshot.datasets).datasetId);
    expect(target).toBeGreaterThanOrEqual(0);
    let stops = 0;
    while (!(await page.evaluate("document.activeElement?.matches('tr[data-dataset-id]')")) && stops++ < 40)
      await page.keyboard.press('Tab');
    for (let i = 0; i < target; i += 1) await page.keyboard.press('j');
    await poll(() => page.evaluate("document.activeElement?.getAttribute('data-dataset-id')")).toBe(
      ids[target],
    );
    await poll(async () => (await textBox(page, NAME())).whole).toBe(true);
    await screenshot(page, 'datasets-long-name-focused');
    await expectAccessible(page, 'datasets, a long name shown whole on the focused row');
    await page.setViewportSize({ width: 1400, height: 900 });
  });
});

describe('Reliability by dataset tells datasets of one name apart', { timeout: 90_000 }, () => {
  it('shows the supplier and the dataset id beside each name', async () => {
    const { page } = suite.light;
    const sharing = suite.server.snapshot.datasets.filter((d) => d.datasetName === SHARED_NAME);
    expect(sharing).toHaveLength(3);
    await follow(page, `reliability?groupBy=dataset&days=30&q=${encodeURIComponent(SHARED_NAME)}`);
    await poll(() => page.locator('tr[data-group-key]').count()).toBe(3);
    const headers = await page
      .locator('.reliability-table thead th')
      .evaluateAll((cells) => cells.slice(0, 3).map((cell) => cell.textContent!.trim()));
    expect(headers).toEqual(['Dataset', 'Supplier', 'Dataset id']);
    const rows = await page.locator('tr[data-group-key]').evaluateAll((each) =>
      each.map((row) => ({
        key: row.getAttribute('data-group-key')!,
        cells: [...row.querySelectorAll('td')].slice(0, 3).map((cell) => cell.textContent!.trim()),
      })),
    );
    expect(rows.map((row) => row.key).sort()).toEqual(sharing.map((d) => d.datasetId).sort());
    for (const row of rows) {
      const dataset = sharing.find((d) => d.datasetId === row.key)!;
      expect(row.cells).toEqual([SHARED_NAME, dataset.supplier.name, dataset.datasetId]);
    }
    // Three names alike, three suppliers and ids apart.
    expect(new Set(rows.map((row) => row.cells.join('|'))).size).toBe(3);
    // The supplier is searched too: the name and one supplier leave that one dataset.
    const [first] = sharing;
    await follow(
      page,
      `reliability?groupBy=dataset&days=30&q=${encodeURIComponent(`${SHARED_NAME} ${first!.supplier.name}`)}`,
    );
    await poll(() =>
      page
        .locator('tr[data-group-key]')
        .evaluateAll((each) => each.map((row) => row.getAttribute('data-group-key'))),
    ).toEqual([first!.datasetId]);
    await screenshot(page, 'reliability-by-dataset-supplier');
    await expectAccessible(page, 'reliability by dataset, supplier and id beside the name');
  });
});

describe('an acknowledgement says who and when in full', { timeout: 90_000 }, () => {
  /** Two FAILED datasets besides the long-named one, acknowledged through the CLI. */
  const failedOthers = () =>
    suite.server.snapshot.datasets.filter(
      (d) => d.latestDeliveryStatus === 'FAILED' && d !== longNamed(suite.server.snapshot.datasets),
    );
  const LONG_BY = 'Alexandra Konstantinopoulou-Whitfield';
  const NOTE = 'Supplier rotated their SFTP credentials overnight; new ones requested in ticket OPS-4411';

  async function acknowledge(datasetId: string, by: string, note: string): Promise<void> {
    const result = await cli([
      'ack',
      datasetId,
      '--by',
      by,
      '--note',
      note,
      '--data-dir',
      suite.server.dataDir,
    ]);
    expect(result.code, result.stderr).toBe(0);
  }

  /** The badge's who-and-when line: its text, and whether it shows whole inside its table cell. */
  function whoLine(page: Page, datasetId: string): Promise<{ text: string; whole: boolean }> {
    return page.evaluate(`((row) => {
      const who = row.querySelector('[data-ack-who]');
      const cell = who.closest('td').getBoundingClientRect();
      const box = who.getBoundingClientRect();
      return {
        text: who.textContent.replace(/\\s+/g, ' ').trim(),
        whole:
          who.scrollWidth <= who.clientWidth + 1 &&
          box.left >= cell.left - 1 && box.right <= cell.right + 1 &&
          box.top >= cell.top - 1 && box.bottom <= cell.bottom + 1,
      };
    })(document.querySelector('tr[data-dataset-id="${datasetId}"]'))`);
  }

  it.each([
    ['alice', 0],
    [LONG_BY, 1],
  ])('in a Triage row at 1280 px, by %s', async (by, which) => {
    const { page } = suite.light;
    const dataset = failedOthers()[which]!;
    await acknowledge(dataset.datasetId, by, NOTE);
    await page.setViewportSize({ width: 1280, height: 800 });
    // The search opens the cause with just this dataset.
    await follow(page, `triage?q=${encodeURIComponent(dataset.datasetId)}`);
    const row = page.locator(`tr[data-dataset-id="${dataset.datasetId}"]`);
    await row.locator('[data-ack-badge]').waitFor({ timeout: 20_000 });
    const who = await whoLine(page, dataset.datasetId);
    expect(who.text).toMatch(new RegExp(`^${by} is on it · (just now|\\d+ min ago)$`));
    expect(who.whole).toBe(true);
    // The note: on hover (the badge's tooltip), for screen readers, and as much as fits on its line.
    const badge = row.locator('[data-ack-badge]');
    expect(await badge.getAttribute('title')).toContain(NOTE);
    expect(await badge.textContent()).toContain(NOTE);
    await screenshot(page, `triage-row-acknowledged-${which}`);
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  it('in the dataset view, the note written out under the badge', async () => {
    const { page } = suite.light;
    const dataset = failedOthers()[0]!;
    await follow(page, `datasets/${encodeURIComponent(dataset.datasetId)}`);
    const triage = page.locator('[data-dataset-triage]');
    await triage.locator('[data-ack-badge]').waitFor({ timeout: 20_000 });
    const who = await triage
      .locator('[data-ack-who]')
      .evaluate((element) => [
        element.textContent!.replace(/\s+/g, ' ').trim(),
        element.scrollWidth <= element.clientWidth + 1,
      ]);
    expect(who[0]).toMatch(/^alice is on it · /);
    expect(who[1]).toBe(true);
    expect(await triage.locator('[data-ack-note]').textContent()).toBe(NOTE);
    await expectAccessible(page, 'dataset view, an acknowledgement with a note');
  });
});

describe('logged no console errors', () => {
  it('in either scheme', () => {
    expect(suite.light.errors).toEqual([]);
    expect(suite.dark.errors).toEqual([]);
  });
});
