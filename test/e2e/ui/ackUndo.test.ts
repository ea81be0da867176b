/**
 * Acknowledging says what it acknowledged, and can be undone (issue 23 part 4 point 6,
 * docs/decisions.md), in Chromium against `serve --ui` with imported demo data:
 * - a cause in Triage, one of whose datasets someone else acknowledged first: the message says how many
 *   datasets of which cause were acknowledged (the others); its Undo has the focus, Enter withdraws
 *   exactly those, the other person's stays, and the focus comes back to the cause's control;
 * - one dataset in the dataset view: the message names it, a click on Undo withdraws it;
 * - the message goes by itself after a while, unless the pointer or the focus is in it; Esc closes it.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { AcknowledgementView, Incident } from '../../../shared/causes';
import { expectAccessible } from '../../helpers/axe';
import { cli } from '../../helpers/cli';
import { UI_ORG, screenshot, uiSuite } from '../../helpers/ui';

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000 });

const suite = uiSuite(300, { dark: true });

const url = (path: string) => `${suite.server.base}/#/orgs/${UI_ORG}/${path}`;

/** An RPC call as the window makes it (POST /rpc/<name> with the page's session). */
async function call<T>(page: Page, name: string, request: object): Promise<T> {
  const response = await page.request.post(`${suite.server.base}/rpc/${name}`, { data: request });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { result: T }).result;
}

/** The org's acknowledgements in force, by dataset: who made each. */
async function acknowledgedBy(page: Page): Promise<Map<string, string>> {
  const acks = await call<AcknowledgementView[]>(page, 'acks.list', { orgId: UI_ORG, includeEnded: false });
  return new Map(acks.map((ack) => [ack.datasetId, ack.by]));
}

/** A link followed from outside: a new document. */
async function follow(page: Page, path: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(url(path));
}

const ackMessage = (page: Page) => page.locator('[data-ack-message]');
const focusedLabel = (page: Page) =>
  page.evaluate(
    "document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent?.trim() ?? ''",
  );

async function acknowledgeInDialog(page: Page, subject: string): Promise<void> {
  const dialog = page.getByRole('dialog', { name: `Acknowledge ${subject}` });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Acknowledge', exact: true }).click();
}

describe('acknowledging says what it acknowledged, with Undo', { timeout: 90_000 }, () => {
  it('an incident: how many datasets of which cause; Undo (Enter) withdraws exactly those', async () => {
    const { page } = suite.light;
    await page.waitForURL(/#\/orgs\/[^/]+\/triage/, { timeout: 30_000 });
    const causes = await call<Incident[]>(page, 'incidents.list', { orgId: UI_ORG });
    const cause = causes.find(
      (each) => each.kind === 'failed' && each.count >= 3 && each.unacknowledged === each.count,
    )!;
    expect(cause).toBeDefined();
    const ids = cause.datasets.map((dataset) => dataset.datasetId);
    // Someone else owned one of them first: acknowledging the cause acknowledges the others.
    const first = await cli(['ack', ids[0]!, '--by', 'kim', '--data-dir', suite.server.dataDir]);
    expect(first.code, first.stderr).toBe(0);

    await follow(page, `triage?incident=${encodeURIComponent(cause.incidentId)}`);
    const card = page.locator(`section[data-incident-id="${cause.incidentId}"]`);
    await poll(() => card.getAttribute('data-unacknowledged')).toBe(String(cause.count - 1));
    await card.getByRole('button', { name: `Acknowledge ${cause.title}` }).click();
    await acknowledgeInDialog(page, cause.title);

    await poll(() => ackMessage(page).locator('span').first().textContent()).toBe(
      `Acknowledged ${cause.count - 1} datasets of ${cause.title}`,
    );
    // Said before the list moves on; all of the cause is owned now.
    await poll(
      async () => [...(await acknowledgedBy(page)).keys()].filter((id) => ids.includes(id)).length,
    ).toBe(cause.count);
    // Undo has the focus once the dialog has gone: Enter undoes.
    await poll(() => page.evaluate("document.activeElement?.hasAttribute('data-ack-undo') ?? false")).toBe(
      true,
    );
    await screenshot(page, 'ack-undo-message-light');
    await expectAccessible(page, 'triage, the acknowledgement message with Undo');
    await page.keyboard.press('Enter');

    await poll(async () => {
      const owners = await acknowledgedBy(page);
      return ids.filter((id) => owners.has(id)).map((id) => [id, owners.get(id)]);
    }).toEqual([[ids[0], 'kim']]);
    await poll(() => card.getAttribute('data-unacknowledged')).toBe(String(cause.count - 1));
    await poll(() => page.locator('.n-message').last().textContent()).toContain(
      `Withdrew ${cause.count - 1} acknowledgements of ${cause.title}`,
    );
    await poll(() => ackMessage(page).count()).toBe(0);
    // The focus is back on the cause's control.
    await poll(() => focusedLabel(page)).toBe(`Acknowledge ${cause.title}`);
  });

  it('a dataset in its view: the message names it; a click on Undo withdraws it', async () => {
    const { page } = suite.light;
    const dataset = suite.server.snapshot.datasets.find(
      (d) => d.latestDeliveryStatus === 'MISSING' || d.latestDeliveryStatus === 'FAILED',
    )!;
    if ((await acknowledgedBy(page)).has(dataset.datasetId))
      throw new Error('test data: already acknowledged');
    await follow(page, `datasets/${encodeURIComponent(dataset.datasetId)}`);
    const triage = page.locator('[data-dataset-triage]');
    await triage.waitFor({ timeout: 20_000 });
    await triage.getByRole('button', { name: `Acknowledge ${dataset.datasetName}` }).click();
    await acknowledgeInDialog(page, dataset.datasetName!);
    await poll(() => ackMessage(page).locator('span').first().textContent()).toBe(
      `Acknowledged ${dataset.datasetName}`,
    );
    await triage.locator('[data-ack-badge]').waitFor();
    expect((await acknowledgedBy(page)).has(dataset.datasetId)).toBe(true);
    await ackMessage(page).getByRole('button', { name: 'Undo' }).click();
    await poll(async () => (await acknowledgedBy(page)).has(dataset.datasetId)).toBe(false);
    await poll(() => triage.locator('[data-ack-badge]').count()).toBe(0);
    await triage.getByRole('button', { name: `Acknowledge ${dataset.datasetName}` }).waitFor();
    // The timeline says it was withdrawn.
    await poll(() =>
      page.locator('section[aria-labelledby="timeline-title"] li').first().getAttribute('data-kind'),
    ).toBe('unacknowledged');
  });

  it('the message goes by itself unless the focus or the pointer is in it; Esc closes it', async () => {
    const { page } = suite.dark;
    const dataset = suite.server.snapshot.datasets.filter(
      (d) => d.latestDeliveryStatus === 'FAILED' || d.latestDeliveryStatus === 'MISSING',
    )[5]!;
    await follow(page, `datasets/${encodeURIComponent(dataset.datasetId)}`);
    const triage = page.locator('[data-dataset-triage]');
    await triage.waitFor({ timeout: 20_000 });
    const acknowledge = async () => {
      await triage.getByRole('button', { name: `Acknowledge ${dataset.datasetName}` }).click();
      await acknowledgeInDialog(page, dataset.datasetName!);
      await ackMessage(page).waitFor();
      await poll(() => page.evaluate("document.activeElement?.hasAttribute('data-ack-undo') ?? false")).toBe(
        true,
      );
    };
    await acknowledge();
    await expectAccessible(page, 'dataset view, the acknowledgement message with Undo, dark');
    // The focus in it keeps it.
    await page.clock.fastForward(15_000);
    expect(await ackMessage(page).count()).toBe(1);
    // Esc closes it (and is not the window's "back"), the focus back on the button.
    await page.keyboard.press('Escape');
    await poll(() => ackMessage(page).count()).toBe(0);
    expect(page.url()).toContain(`/datasets/${encodeURIComponent(dataset.datasetId)}`);
    await poll(() => focusedLabel(page)).toBe(`Withdraw the acknowledgement of ${dataset.datasetName}`);
    // Withdrawn, acknowledged again: with the focus elsewhere, the message goes after 10 s.
    await page.keyboard.press('Enter');
    await triage.getByRole('button', { name: `Acknowledge ${dataset.datasetName}` }).waitFor();
    await acknowledge();
    await page.evaluate('document.activeElement?.blur()');
    await page.mouse.move(0, 600);
    await page.clock.fastForward(11_000);
    await poll(() => ackMessage(page).count()).toBe(0);
    expect((await acknowledgedBy(page)).get(dataset.datasetId)).toBeDefined();
  });

  it('logged no console errors', () => {
    expect(suite.light.errors).toEqual([]);
    expect(suite.dark.errors).toEqual([]);
  });
});
