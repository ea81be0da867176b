/**
 * The window's frame in Chromium against `serve --ui` with imported demo data (issue 23 part 4 point 1,
 * docs/decisions.md): the top bar — navigation, sync state, "Sync now" — stays in
 * view on every route and on deep links. A `?incident=` link to the last incident of Triage scrolls the
 * content pane to it, never the bar off the top; so does a deep link to a dataset and then bringing the
 * bottom of any view into view; the document itself never scrolls.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { UI_ORG, uiSuite } from '../../helpers/ui';

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000 });

const suite = uiSuite(300);

const url = (path: string) => `${suite.server.base}/#/${path}`;
const failed = () => suite.server.snapshot.datasets.find((d) => d.latestDeliveryStatus === 'FAILED')!;

/** A link followed from outside: a new document, nothing kept from the last visit. */
async function follow(page: Page, path: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(url(path));
}

interface BarState {
  /** The bar's box. */
  top: number;
  bottom: number;
  /** The element drawn at the middle of the bar's "Sync now" button and of its brand belong to the bar. */
  drawn: boolean;
  /** How far the document is scrolled, and whether it could be. */
  documentScroll: number;
  documentScrollable: boolean;
}

/** Where the bar is and whether it is what one sees there. (Page code as text: Node's globals here.) */
function barState(page: Page): Promise<BarState> {
  return page.evaluate(`(() => {
    const bar = document.querySelector('header.bar');
    const box = bar.getBoundingClientRect();
    const seen = (element) => {
      const r = element.getBoundingClientRect();
      return bar.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
    };
    const button = [...bar.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Sync now');
    const root = document.scrollingElement;
    return {
      top: box.top,
      bottom: box.bottom,
      drawn: seen(bar.querySelector('.brand')) && seen(button) && seen(bar.querySelector('nav')),
      documentScroll: root.scrollTop,
      documentScrollable: root.scrollHeight > root.clientHeight,
    };
  })()`);
}

async function expectBarInView(page: Page): Promise<void> {
  const state = await barState(page);
  expect(state.top).toBeGreaterThanOrEqual(0);
  expect(state.bottom).toBeLessThanOrEqual(await page.evaluate('innerHeight'));
  expect(state.drawn).toBe(true);
  expect(state.documentScroll).toBe(0);
  expect(state.documentScrollable).toBe(false);
}

/** Brings the last element of the content pane into view, as a link to something far down would. */
const toBottom = (page: Page) =>
  page.evaluate(
    `[...document.querySelectorAll('main.content *')].at(-1)?.scrollIntoView({ block: 'start' })`,
  );

describe('the top bar', { timeout: 120_000 }, () => {
  it('stays in view when an ?incident= link opens the last incident of Triage', async () => {
    const { page } = suite.light;
    await page.waitForURL(/#\/orgs\/[^/]+\/triage/, { timeout: 30_000 });
    await page.locator('section[data-incident-id]').first().waitFor({ timeout: 20_000 });
    const incidents = await page
      .locator('section[data-incident-id]')
      .evaluateAll((cards) => cards.map((card) => card.getAttribute('data-incident-id')!));
    expect(incidents.length).toBeGreaterThan(5);
    const last = incidents.at(-1)!;
    await follow(page, `orgs/${UI_ORG}/triage?incident=${encodeURIComponent(last)}`);
    const card = page.locator(`section[data-incident-id="${last}"]`);
    await poll(() => card.locator('button[aria-expanded]').getAttribute('aria-expanded')).toBe('true');
    await poll(() => page.evaluate("document.activeElement?.getAttribute('data-stop') ?? ''")).toBe(
      `cause:${last}`,
    );
    // The pane scrolled to the incident (it is far down the list), the bar did not move.
    expect(await page.evaluate("document.querySelector('main.content').scrollTop")).toBeGreaterThan(0);
    const incident = (await card.boundingBox())!;
    expect(incident.y).toBeGreaterThanOrEqual((await barState(page)).bottom - 1);
    await expectBarInView(page);
  });

  it('stays in view on a deep link to a dataset, scrolled to its end', async () => {
    const { page } = suite.light;
    await follow(page, `orgs/${UI_ORG}/datasets/${encodeURIComponent(failed().datasetId)}`);
    await page.locator('section[aria-labelledby="timeline-title"]').waitFor({ timeout: 20_000 });
    await poll(() => page.locator('section[aria-labelledby="history-title"] tr').count()).toBeGreaterThan(1);
    // The on-time chart with its weeks as a hidden table (absolutely placed) is the last to come.
    await page.locator('section.on-time figure.trend svg').first().waitFor({ timeout: 20_000 });
    await expectBarInView(page);
    await toBottom(page);
    expect(await page.evaluate("document.querySelector('main.content').scrollTop")).toBeGreaterThan(0);
    await expectBarInView(page);
  });

  it.each([
    ['datasets', 'table'],
    ['reliability', 'table'],
    ['upcoming', 'main.content h1'],
    ['handoff', 'main.content h1'],
  ])('stays in view on %s, scrolled to its end', async (view, shown) => {
    const { page } = suite.light;
    await follow(page, `orgs/${UI_ORG}/${view}`);
    await page.locator(shown).first().waitFor({ timeout: 20_000 });
    await toBottom(page);
    await expectBarInView(page);
  });

  it('stays in view on a delivery and in Settings, scrolled to their end', async () => {
    const { page } = suite.light;
    const dataset = failed();
    await follow(
      page,
      `orgs/${UI_ORG}/datasets/${encodeURIComponent(dataset.datasetId)}/deliveries/${encodeURIComponent(dataset.deliveryId!)}`,
    );
    await page.locator('section[aria-label="Stages"]').waitFor({ timeout: 20_000 });
    await toBottom(page);
    await expectBarInView(page);
    await follow(page, `settings?org=${UI_ORG}`);
    await page.getByRole('heading', { level: 3, name: 'API keys' }).waitFor({ timeout: 20_000 });
    await toBottom(page);
    await expectBarInView(page);
  });

  it('logged no console errors', () => {
    expect(suite.light.errors).toEqual([]);
  });
});
