/**
 * Bidi controls in stored text, in Chromium against `serve --ui`: every dataset, supplier and data
 * product name, every task message, a source's and a key's name, who acknowledged and the note begin with
 * U+202E (RIGHT-TO-LEFT OVERRIDE). Each view shows that text isolated — in a `<bdi>` (or an element that
 * is alone in its line, a table cell say) — so the override reverses the name itself and nothing after it:
 * not "Acknowledged by … · 5 min ago", not the rest of a row. Checked on every text node of every view
 * that holds such a character.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSnapshot } from '../../../electron/demo/generate';
import { Store } from '../../../electron/store/database';
import { setSnooze } from '../../../electron/store/tables/snoozes';
import type { Incident } from '../../../shared/causes';
import type { Snapshot } from '../../../shared/schemas';
import { STAGES } from '../../../shared/status';
import { launchChromium } from '../../helpers/chromium';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { killChildren } from '../../helpers/process';
import { testClock } from '../../helpers/testClock';
import { UI_NOW, UI_ORG, type UiPage, type UiServer, openUi, screenshot, serveUi } from '../../helpers/ui';

const RLO = '\u202E';
const REMOTE_KEY = { DATASET_HEALTH_REMOTE_KEY: 'unused-key' };

let server: UiServer;
let browser: Browser;
let light: UiPage;
let acknowledged: { datasetId: string; deliveryId: string };

/** Every name and message of the demo begins with U+202E. */
function overridden(snapshot: Snapshot): Snapshot {
  for (const dataset of snapshot.datasets) {
    dataset.datasetName = `${RLO}${dataset.datasetName}`;
    dataset.dataProductName = `${RLO}${dataset.dataProductName}`;
    if (dataset.supplier?.name) dataset.supplier.name = `${RLO}${dataset.supplier.name}`;
  }
  for (const tasks of Object.values(snapshot.tasks ?? {}))
    for (const stage of STAGES)
      for (const task of tasks[stage].tasks) if (task.message) task.message = `${RLO}${task.message}`;
  return snapshot;
}

async function ok(argv: string[], dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const result = await cli([...argv, '--data-dir', dataDir], env);
  if (result.code !== 0) throw new Error(`${argv.join(' ')} failed: ${result.stderr}`);
}

beforeAll(async () => {
  const dataDir = tempDir('dh-ui-bidi-');
  const snapshot = overridden(generateDemoSnapshot({ datasets: 80, seed: 11, now: UI_NOW, orgId: UI_ORG }));
  const file = join(dataDir, 'snapshot.json');
  writeFileSync(file, JSON.stringify(snapshot));
  await ok(['import', '--org', UI_ORG, file], dataDir);
  const failed = snapshot.datasets.find(
    (d) => d.latestDeliveryStatus === 'FAILED' && snapshot.tasks?.[d.deliveryId ?? ''] !== undefined,
  )!;
  acknowledged = { datasetId: failed.datasetId, deliveryId: failed.deliveryId! };
  await ok(['ack', failed.datasetId, '--by', `${RLO}alice`, '--note', `${RLO}vendor ticket 4711`], dataDir);
  await ok(['keys', 'create', '--org', UI_ORG, '--name', `${RLO}ci bot`], dataDir);
  await ok(
    ['sources', 'add', '--org', UI_ORG, '--name', `${RLO}Acme remote`, '--remote', 'http://127.0.0.1:9'],
    dataDir,
    REMOTE_KEY,
  );
  const store = await Store.open({ dataDir });
  setSnooze(store, UI_ORG, snapshot.datasets[0]!.datasetId, '4h', UI_NOW);
  await store.close();
  [server, browser] = await Promise.all([
    serveUi(dataDir, testClock(UI_NOW), REMOTE_KEY).then((served) => ({ ...served, dataDir, snapshot })),
    launchChromium(),
  ]);
  light = await openUi(browser, server, 'light');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  killChildren();
  removeTempDirs();
});

/**
 * The text nodes holding a bidi control whose override reaches other text. An override acts on what
 * follows it up to the end of its paragraph or of the element that isolates it (`unicode-bidi: isolate`,
 * as `<bdi>` has; any display but inline ends a paragraph): from the control on, that must be one stored
 * text and nothing else — unless the string itself isolates the stored text (U+2068 FIRST STRONG
 * ISOLATE … U+2069 POP DIRECTIONAL ISOLATE, the plain-text `<bdi>`). Tooltips (`title`) likewise,
 * each one paragraph.
 */
const LEAKS = `((stored) => {
  const BIDI = /[\\u202A-\\u202E\\u2066-\\u2069]/;
  const isolating = new Set(['isolate', 'isolate-override', 'plaintext']);
  const leaks = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!BIDI.test(node.data) || node.parentElement.getClientRects().length === 0) continue;
    // Controls inside an isolate the string itself closes (U+2066–2068 … U+2069) reach nothing else.
    const open = node.data.replace(/[\\u2066-\\u2068][^\\u2066-\\u2069]*\\u2069/g, (run) => ' '.repeat(run.length));
    const first = open.search(BIDI);
    if (first < 0) continue;
    let element = node.parentElement;
    for (;;) {
      const style = getComputedStyle(element);
      if (isolating.has(style.unicodeBidi) || !['inline', 'contents'].includes(style.display)) break;
      element = element.parentElement;
    }
    // Where the node's first control sits in the element's text.
    const range = document.createRange();
    range.setStart(element, 0);
    range.setEnd(node, first);
    const text = element.textContent;
    const at = range.toString().length;
    const own = stored.filter((s) => text.startsWith(s, at)).sort((a, b) => b.length - a.length)[0];
    const after = own === undefined ? text.slice(at) : text.slice(at + own.length);
    if (own === undefined || after.trim() !== '')
      leaks.push(element.tagName.toLowerCase() + '.' + element.className + ': ' + text.trim().slice(0, 120));
  }
  // Tooltips are plain text, one paragraph each: the same rule, within the attribute. (Labels for screen
  // readers are spoken in their stored order: an override turns nothing around there.)
  for (const element of document.querySelectorAll('[title]')) {
    for (const name of ['title']) {
      const text = element.getAttribute(name);
      if (text === null) continue;
      const at = text.replace(/[\\u2066-\\u2068][^\\u2066-\\u2069]*\\u2069/g, (run) => ' '.repeat(run.length)).search(BIDI);
      if (at < 0) continue;
      const own = stored.filter((s) => text.startsWith(s, at)).sort((a, b) => b.length - a.length)[0];
      if (own === undefined || text.slice(at + own.length).trim() !== '')
        leaks.push(element.tagName.toLowerCase() + '[' + name + ']: ' + text.slice(0, 120));
    }
  }
  return leaks;
})`;

/** Every stored text that begins with the override. */
const storedTexts = (): string[] => {
  const texts = new Set([`${RLO}alice`, `${RLO}vendor ticket 4711`, `${RLO}ci bot`, `${RLO}Acme remote`]);
  for (const dataset of server.snapshot.datasets)
    for (const text of [dataset.datasetName, dataset.dataProductName, dataset.supplier?.name])
      if (text) texts.add(text);
  for (const tasks of Object.values(server.snapshot.tasks ?? {}))
    for (const stage of STAGES)
      for (const task of tasks[stage].tasks) if (task.message) texts.add(task.message);
  return [...texts];
};

async function leaks(page: Page): Promise<string[]> {
  return (await page.evaluate(`${LEAKS}(${JSON.stringify(storedTexts())})`)) as string[];
}

/** Opens a view of the window and waits until something of the org's text is on it. */
async function show(page: Page, hash: string, ready: string): Promise<void> {
  await page.goto(`${server.base}/#${hash}`);
  await page
    .locator(ready)
    .first()
    .waitFor({ timeout: 20_000 })
    .catch(async (error: unknown) => {
      await screenshot(page, 'bidi-not-ready');
      throw error;
    });
  // The rows fill in behind the first ones: let the view settle.
  await page.waitForTimeout(300);
}

describe('bidi controls in names and notes', { timeout: 120_000 }, () => {
  it('stay inside their text in every view', async () => {
    const { page } = light;
    await page.waitForURL(/#\/orgs\/[^/]+\/triage/, { timeout: 30_000 });
    const causes = await page.request.post(`${server.base}/rpc/incidents.list`, { data: { orgId: UI_ORG } });
    const [first] = ((await causes.json()) as { result: Incident[] }).result;
    const org = `/orgs/${UI_ORG}`;
    const dataset = `${org}/datasets/${encodeURIComponent(acknowledged.datasetId)}`;
    const views: [string, string][] = [
      [`${org}/datasets`, 'tr[data-dataset-id]'],
      [`${org}/triage?incident=${encodeURIComponent(first!.incidentId)}`, '[data-incident-id]'],
      [dataset, '[data-dataset-triage]'],
      [`${dataset}/deliveries/${encodeURIComponent(acknowledged.deliveryId)}`, 'h1'],
      [`${org}/handoff?since=24h`, '[data-summary]'],
      [`${org}/upcoming?hours=24`, 'tr[data-deadline-key]'],
      [`${org}/reliability?groupBy=dataset`, '[data-group-key]'],
      [`${org}/reliability?groupBy=supplier`, '[data-group-key]'],
      ['/settings', 'h1'],
    ];
    const found: Record<string, string[]> = {};
    for (const [hash, ready] of views) {
      await show(page, hash, ready);
      found[hash] = await leaks(page);
      await screenshot(page, `bidi-${hash.split('/')[3]?.split('?')[0] ?? 'settings'}`);
    }
    expect(found).toEqual(Object.fromEntries(views.map(([hash]) => [hash, []])));
    // The check looked at something: the names are on the pages, override and all.
    await show(page, `${org}/datasets`, 'tr[data-dataset-id]');
    expect(await page.locator('body').textContent()).toContain(RLO);
  });
});
