/**
 * The Triage view in Chromium against `serve --ui` with imported demo data (docs/decisions.md
 * "Incidents"): the window lands on it while anything is FAILED or MISSING; incidents are listed live and
 * unacknowledged first, then newest first, with counts that match a reference grouping computed here
 * from the imported snapshot (cause: first failed task of each FAILED dataset's newest failed delivery,
 * MISSING by supplier; failures of one cause within 6 h of each other together); an incident opens to
 * its datasets; the keyboard works as in the datasets table; acknowledging an incident with a note shows
 * the badge, moves it down and survives a reload; `?incident=` (and a `?cause=` link from before) opens
 * one; axe-core finds no serious or critical violation, light or dark; screenshots for the README.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { UNKNOWN_CAUSE_ID, failedCauseId, firstFailure, missingCauseId } from '../../../shared/causes';
import { DEFAULT_INCIDENT_GAP_MS, incidentIdOf } from '../../../electron/store/schema/incidents';
import type { DatasetRecord, DeliveryEvent } from '../../../shared/schemas';
import { expectAccessible } from '../../helpers/axe';
import { SCREENSHOTS, UI_ORG, screenshot, uiSuite } from '../../helpers/ui';

/** Waits for a value: the server and the browser share the machine with other tests, so not just 1 s. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 10_000 });

const suite = uiSuite(300, { dark: true });

/** Where README's screenshots live. */
const DOCS = fileURLToPath(new URL('../../../docs', import.meta.url));

interface ReferenceCause {
  /** The incident's id: from its cause and its earliest failure. */
  causeId: string;
  /** Its cause key. */
  causeKey: string;
  kind: 'failed' | 'unknown' | 'missing';
  datasets: string[];
  lastFailure: string;
}

const newestFirst = (a: DeliveryEvent, b: DeliveryEvent): number =>
  (b.deliveryDeadline ?? '').localeCompare(a.deliveryDeadline ?? '') ||
  (b.deliveredAt ?? '').localeCompare(a.deliveredAt ?? '');

const iso = (text: string) => new Date(text).toISOString();

/**
 * The incidents as docs/decisions.md defines them, from the snapshot alone: a FAILED dataset's cause is
 * the first failed task (stages in order) of its newest FAILED delivery ("unknown" when that delivery has
 * no tasks or no failed task), its time that task's end (else its stage's time, else the delivery's);
 * MISSING datasets by supplier, at their deadline. Failures of one cause, in time order, each within 6 h
 * of the one before are one incident. Listed: those with a dataset nobody acknowledged first, then by
 * last failure, newest first, then by id.
 */
function referenceCauses(acknowledged: ReadonlySet<string> = new Set()): ReferenceCause[] {
  const { datasets, tasks } = suite.server.snapshot;
  const failures: {
    causeKey: string;
    kind: ReferenceCause['kind'];
    datasetId: string;
    deliveryId: string;
    status: string;
    at: string;
  }[] = [];
  for (const record of datasets) {
    const status = record.latestDeliveryStatus;
    if (status !== 'FAILED' && status !== 'MISSING') continue;
    if (status === 'MISSING') {
      const deadline = record.deliveryEventList.find(
        (e) => e.deliveryId === record.deliveryId,
      )?.deliveryDeadline;
      failures.push({
        causeKey: missingCauseId(record.supplier.id),
        kind: 'missing',
        datasetId: record.datasetId,
        deliveryId: record.deliveryId ?? '',
        status,
        at: iso(deadline!),
      });
    } else {
      const failed = record.deliveryEventList.filter((e) => e.status === 'FAILED').sort(newestFirst)[0];
      const deliveryId = failed?.deliveryId ?? record.deliveryId;
      const stored = deliveryId ? tasks?.[deliveryId] : undefined;
      const first = stored ? firstFailure(stored) : null;
      failures.push({
        causeKey: first ? failedCauseId(first.stage, first.shortCode) : UNKNOWN_CAUSE_ID,
        kind: first ? 'failed' : 'unknown',
        datasetId: record.datasetId,
        deliveryId: deliveryId ?? '',
        status,
        at: iso((first?.at ?? failed?.deliveredAt ?? failed?.deliveryDeadline)!),
      });
    }
  }
  failures.sort(
    (a, b) =>
      a.at.localeCompare(b.at) || (a.datasetId < b.datasetId ? -1 : a.datasetId > b.datasetId ? 1 : 0),
  );
  const open = new Map<string, ReferenceCause>();
  const incidents: ReferenceCause[] = [];
  for (const failure of failures) {
    let incident = open.get(failure.causeKey);
    if (
      incident === undefined ||
      Date.parse(failure.at) - Date.parse(incident.lastFailure) > DEFAULT_INCIDENT_GAP_MS
    ) {
      incident = {
        causeId: incidentIdOf(UI_ORG, failure.causeKey, {
          ...failure,
          title: '',
          causeId: failure.causeKey,
          reportedAt: null,
        }),
        causeKey: failure.causeKey,
        kind: failure.kind,
        datasets: [],
        lastFailure: failure.at,
      };
      open.set(failure.causeKey, incident);
      incidents.push(incident);
    }
    incident.datasets.push(failure.datasetId);
    incident.lastFailure = failure.at;
  }
  const allAcked = (cause: ReferenceCause): number => Number(acknowledged.has(cause.causeId));
  return incidents.sort(
    (a, b) =>
      allAcked(a) - allAcked(b) ||
      b.lastFailure.localeCompare(a.lastFailure) ||
      a.causeId.localeCompare(b.causeId),
  );
}

/** The incident with the most datasets (the live outage): the one the tests open and acknowledge. */
const largest = (acknowledged: ReadonlySet<string> = new Set()): ReferenceCause =>
  [...referenceCauses(acknowledged)].sort(
    (a, b) => b.datasets.length - a.datasets.length || a.causeId.localeCompare(b.causeId),
  )[0]!;

const triageUrl = (query = '') => `${suite.server.base}/#/orgs/${UI_ORG}/triage${query}`;
const causeCard = (page: Page, causeId: string): Locator =>
  page.locator(`section[data-incident-id="${causeId.replace(/"/g, '\\"')}"]`);
const toggleOf = (card: Locator): Locator => card.locator('button[aria-expanded]');

/** The causes on screen, top to bottom: id, count, unacknowledged. */
function shownCauses(page: Page): Promise<{ id: string; count: number; unacknowledged: number }[]> {
  return page.locator('section[data-incident-id]').evaluateAll((cards) =>
    cards.map((card) => ({
      id: card.getAttribute('data-incident-id')!,
      count: Number(card.getAttribute('data-count')),
      unacknowledged: Number(card.getAttribute('data-unacknowledged')),
    })),
  );
}

/** Triage in a new document (a link followed from outside): nothing kept from the last test's visit. */
async function showTriage(page: Page, query = ''): Promise<void> {
  await page.goto('about:blank');
  await page.goto(triageUrl(query));
  await page.locator('section[data-incident-id]').first().waitFor({ timeout: 20_000 });
}

/**
 * What has the keyboard focus: a cause's toggle, a dataset row, or something else. (Page code as text:
 * this file type-checks against Node's globals.)
 */
async function focused(page: Page): Promise<string> {
  return String(await page.evaluate("document.activeElement?.getAttribute('data-stop') ?? 'elsewhere'"));
}

describe('triage view', () => {
  it('is where the window lands, listing the causes worst first with counts matching the reference', async () => {
    const { page } = suite.light;
    await page.waitForURL(triageUrl(), { timeout: 20_000 });
    await page.locator('section[data-incident-id]').first().waitFor({ timeout: 20_000 });
    const reference = referenceCauses();
    expect(reference.length).toBeGreaterThan(5);
    expect(reference.some((cause) => cause.kind === 'missing')).toBe(true);
    expect(await shownCauses(page)).toEqual(
      reference.map((cause) => ({
        id: cause.causeId,
        count: cause.datasets.length,
        unacknowledged: cause.datasets.length,
      })),
    );
    const [worst] = reference;
    const card = causeCard(page, worst!.causeId);
    const [stage, code] = worst!.causeKey.split(':');
    expect(await toggleOf(card).textContent()).toContain(`failed: ${code}`);
    expect((await toggleOf(card).textContent())!.toLowerCase()).toContain(stage);
    const n = worst!.datasets.length;
    expect(await card.locator('[data-count-text]').textContent()).toBe(`${n} dataset${n === 1 ? '' : 's'}`);
    // The representative failure: its message and a link to its delivery.
    expect(await card.locator('[data-message]').textContent()).not.toBe('');
    expect(await card.locator('a[data-representative]').getAttribute('href')).toMatch(
      new RegExp(`#/orgs/${UI_ORG}/datasets/[^/]+/deliveries/[^/]+$`),
    );
    const total = reference.reduce((sum, cause) => sum + cause.datasets.length, 0);
    expect(await page.locator('.summary').getAttribute('data-datasets')).toBe(String(total));
    await screenshot(page, 'triage-light');
  });

  it('opens a cause to its datasets, with status, message and acknowledge buttons on each row', async () => {
    const { page } = suite.light;
    await showTriage(page);
    const worst = largest();
    const card = causeCard(page, worst.causeId);
    expect(await card.locator('tr[data-dataset-id]').count()).toBe(0);
    await toggleOf(card).click();
    expect(await toggleOf(card).getAttribute('aria-expanded')).toBe('true');
    await poll(() => card.locator('tr[data-dataset-id]').count()).toBe(worst.datasets.length);
    const ids = await card
      .locator('tr[data-dataset-id]')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-dataset-id')!));
    expect([...ids].sort()).toEqual([...worst.datasets].sort());
    const row = card.locator('tr[data-dataset-id]').first();
    expect(await row.locator('[data-status]').getAttribute('data-status')).toBe('FAILED');
    const record = suite.server.snapshot.datasets.find((d) => d.datasetId === ids[0]) as DatasetRecord;
    expect(await row.textContent()).toContain(record.datasetName);
    expect(await row.getByRole('button', { name: `Acknowledge ${record.datasetName}` }).count()).toBe(1);
    await screenshot(page, 'triage-open-light');
    await toggleOf(card).click();
    await poll(() => card.locator('tr[data-dataset-id]').count()).toBe(0);
  });

  it('keyboard: Tab reaches a cause, Enter opens it, j/k move over its datasets, Enter opens one, Esc comes back', async () => {
    const { page } = suite.light;
    await showTriage(page);
    const worst = largest();
    const causeStop = `cause:${worst.causeId}`;
    let stops = 0;
    while ((await focused(page)) !== causeStop && stops++ < 30) await page.keyboard.press('Tab');
    expect(await focused(page)).toBe(causeStop);
    await page.keyboard.press('Enter');
    const card = causeCard(page, worst.causeId);
    await poll(() => toggleOf(card).getAttribute('aria-expanded')).toBe('true');
    const ids = await card
      .locator('tr[data-dataset-id]')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-dataset-id')!));
    await page.keyboard.press('j');
    await poll(() => focused(page)).toBe(`dataset:${worst.causeId}:${ids[0]}`);
    await page.keyboard.press('j');
    await poll(() => focused(page)).toBe(`dataset:${worst.causeId}:${ids[1]}`);
    await page.keyboard.press('k');
    await poll(() => focused(page)).toBe(`dataset:${worst.causeId}:${ids[0]}`);
    expect(await card.locator('tr.highlighted').getAttribute('data-dataset-id')).toBe(ids[0]);
    // The focused row shows a visible focus ring.
    await expect(page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).resolves.toBe(
      'solid',
    );
    await page.keyboard.press('Enter');
    await page.waitForURL(`${suite.server.base}/#/orgs/${UI_ORG}/datasets/${encodeURIComponent(ids[0]!)}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.keyboard.press('Escape');
    await page.waitForURL(triageUrl());
    // Back on the same row, the cause still open.
    await poll(() => focused(page)).toBe(`dataset:${worst.causeId}:${ids[0]}`);
    // Esc in Triage closes the cause the keyboard is in, back on its title.
    await page.keyboard.press('Escape');
    await poll(() => toggleOf(card).getAttribute('aria-expanded')).toBe('false');
    expect(await focused(page)).toBe(causeStop);
    // `/` searches: a dataset's name leaves its cause, open, with that dataset.
    const name = suite.server.snapshot.datasets.find((d) => d.datasetId === ids[1])!.datasetName!;
    await page.keyboard.press('/');
    await page.keyboard.type(name);
    await poll(() => page.locator('tr[data-dataset-id]').count()).toBeGreaterThan(0);
    const found = await page
      .locator('tr[data-dataset-id]')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-dataset-id')));
    expect(found).toContain(ids[1]);
    await poll(() => new URLSearchParams(page.url().split('?')[1] ?? '').get('q')).toBe(name);
  });

  it('acknowledging a cause with a note shows the badge and moves it below the unowned ones; a reload keeps it', async () => {
    const { page } = suite.light;
    await showTriage(page);
    const worst = largest();
    const card = causeCard(page, worst.causeId);
    const title = (await toggleOf(card).textContent())!.replace(/^[▸▾]\s*/, '').trim();
    await card.getByRole('button', { name: `Acknowledge ${title}` }).click();
    const dialog = page.getByRole('dialog', { name: `Acknowledge ${title}` });
    await dialog.waitFor();
    const note = 'Supplier credentials rotated; ticket OPS-4411';
    await dialog.getByLabel('Note (optional)').fill(note);
    await expectAccessible(page, 'triage, acknowledge dialog, light');
    await dialog.getByRole('button', { name: 'Acknowledge', exact: true }).click();
    await poll(() => card.locator('[data-ack-badge]').count()).toBe(1);
    expect(await card.locator('[data-ack-note]').textContent()).toBe(note);
    expect(await card.locator('[data-ack-badge]').textContent()).toMatch(/^\S.* is on it · /);
    expect(await card.getAttribute('data-unacknowledged')).toBe('0');
    const after = referenceCauses(new Set([worst.causeId])).map((cause) => cause.causeId);
    expect(after.indexOf(worst.causeId)).toBeGreaterThan(0);
    await poll(async () => (await shownCauses(page)).map((cause) => cause.id)).toEqual(after);

    await page.reload();
    await page.locator('section[data-incident-id]').first().waitFor({ timeout: 20_000 });
    expect((await shownCauses(page)).map((cause) => cause.id)).toEqual(after);
    expect(await causeCard(page, worst.causeId).locator('[data-ack-note]').textContent()).toBe(note);

    // Each of its datasets shows the acknowledgement; withdrawing one makes the cause unowned again.
    const reloaded = causeCard(page, worst.causeId);
    await toggleOf(reloaded).click();
    const rows = reloaded.locator('tr[data-dataset-id]');
    await poll(() => rows.count()).toBe(worst.datasets.length);
    expect(await rows.locator('[data-ack-badge]').count()).toBe(worst.datasets.length);
    await rows
      .first()
      .getByRole('button', { name: /^Withdraw the acknowledgement of / })
      .click();
    await poll(() => reloaded.getAttribute('data-unacknowledged')).toBe('1');
    expect(await reloaded.locator('.head [data-ack-badge]').count()).toBe(0);
    // Unowned again: back among the unowned ones, by its last failure.
    await poll(async () => (await shownCauses(page)).map((cause) => cause.id)).toEqual(
      referenceCauses().map((cause) => cause.causeId),
    );
  });

  it('?incident= opens that incident and scrolls it into view; a link by cause opens its newest', async () => {
    const { page } = suite.light;
    const target = referenceCauses().at(-1)!;
    await showTriage(page, `?incident=${encodeURIComponent(target.causeId)}`);
    const card = causeCard(page, target.causeId);
    await poll(() => toggleOf(card).getAttribute('aria-expanded')).toBe('true');
    await poll(() => card.locator('tr[data-dataset-id]').count()).toBe(target.datasets.length);
    await poll(() => focused(page)).toBe(`cause:${target.causeId}`);
    const box = (await toggleOf(card).boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(-1);
    expect(box.y).toBeLessThan(900);
    // A link from before incidents names a cause: its newest live incident opens.
    const byCause = referenceCauses()
      .filter((cause) => cause.causeKey === target.causeKey)
      .sort((a, b) => b.lastFailure.localeCompare(a.lastFailure))[0]!;
    await showTriage(page, `?cause=${encodeURIComponent(target.causeKey)}`);
    await poll(() => toggleOf(causeCard(page, byCause.causeId)).getAttribute('aria-expanded')).toBe('true');
    // An incident that is over, a cause nobody has any more, and one that is not a cause at all, are said so.
    await showTriage(page, '?incident=inc-0000000000');
    await page.getByText('That incident is over').waitFor();
    await showTriage(page, '?cause=ingest:E_NOT_A_REAL_CODE');
    await page.getByText('That incident is over').waitFor();
    await showTriage(page, '?cause=nonsense');
    await page.getByText("The link's cause is not valid").waitFor();
  });

  it.each(['light', 'dark'] as const)(
    'has no serious or critical accessibility violations, %s (a cause open)',
    async (scheme) => {
      const { page } = scheme === 'light' ? suite.light : suite.dark;
      const target = referenceCauses()[1]!;
      await showTriage(page, `?incident=${encodeURIComponent(target.causeId)}`);
      await poll(() => causeCard(page, target.causeId).locator('tr[data-dataset-id]').count()).toBe(
        target.datasets.length,
      );
      await expectAccessible(page, `triage, ${scheme}`);
    },
  );

  it('screenshots, light and dark, copied to docs/ for the README', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { page } = scheme === 'light' ? suite.light : suite.dark;
      // The worst cause open: two of its datasets acknowledged above (one withdrawn), one not.
      const worst = largest();
      await showTriage(page, `?incident=${encodeURIComponent(worst.causeId)}`);
      await poll(() => causeCard(page, worst.causeId).locator('tr [data-ack-badge]').count()).toBe(
        worst.datasets.length - 1,
      );
      await page.evaluate(
        "document.activeElement?.blur(); document.querySelector('.content')?.scrollTo(0, 0)",
      );
      await screenshot(page, `triage-${scheme}`);
      copyFileSync(join(SCREENSHOTS, `triage-${scheme}.png`), join(DOCS, `screenshot-triage-${scheme}.png`));
    }
  });

  it('logged no console errors', () => {
    expect(suite.light.errors).toEqual([]);
    expect(suite.dark.errors).toEqual([]);
  });
});
