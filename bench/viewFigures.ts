/**
 * The views' first content in Chromium against `serve --ui`: Upcoming, Reliability and Handoff, each
 * round a new document from navigation start, p50 beside the budget.
 */
import type { Page } from 'playwright-core';
import { DEFAULT_HANDOFF_HOURS } from '../shared/handoffOptions';
import { DEFAULT_STATS_DAYS, DEFAULT_STATS_GROUP_BY } from '../shared/reliability';
import { DEFAULT_UPCOMING_HOURS } from '../shared/upcoming';
import { launchChromium } from '../test/helpers/chromium';
import { viewBudget } from './budgets';
import { startTsServer } from './children';
import { type PageGlobals, ROUNDS, ensureRendererBuilt } from './browserPage';
import { type Report, ms } from './report';
import type { BenchOrg } from './setup';
import { summarize } from './stats';

/**
 * In the page: resolves with the ms from navigation start until every one of `selectors` matches an
 * element (a view's own "first content"), and a frame was drawn. Timed inside the page, as `timeTable`.
 */
function timeFirstContent(page: Page, what: string, selectors: readonly string[]): Promise<number> {
  return page.evaluate(
    ([name, wanted]) =>
      new Promise<number>((resolve, reject) => {
        const page = globalThis as unknown as PageGlobals;
        const shows = (): boolean =>
          wanted.every((selector) => page.document.querySelector(selector) !== null);
        const done = (): void => page.requestAnimationFrame(() => resolve(performance.now()));
        const observer = new page.MutationObserver(() => {
          if (!shows()) return;
          observer.disconnect();
          done();
        });
        observer.observe(page.document.body, {
          subtree: true,
          childList: true,
          attributes: true,
          characterData: true,
        });
        if (shows()) {
          observer.disconnect();
          done();
        }
        setTimeout(() => {
          const missing = wanted.filter((selector) => page.document.querySelector(selector) === null);
          reject(new Error(`${name}: no ${missing.join(', ')} within 30 s`));
        }, 30_000);
      }),
    [what, selectors] as const,
  );
}

export interface ViewContent {
  /** "Upcoming view" (the table's row names it). */
  name: string;
  /** The view's route below the org, e.g. "upcoming". */
  route: string;
  /** Its first content: every selector matches an element. */
  selectors: readonly string[];
  /** What the first content is, for the note. */
  shows: string;
  /** An attribute counting what the view showed (read after the last round), for the note. */
  count?: { selector: string; attribute: string; label: string };
}

/** A view's first content, each round a new document from navigation start: p50 beside the budget. */
export async function viewFigure(
  page: Page,
  origin: string,
  orgId: string,
  size: number,
  view: ViewContent,
  report: Report,
): Promise<void> {
  const hash = `#/orgs/${orgId}/${view.route}`;
  // Once untimed: the server's first answer (its history read) is the engine's figure, not the window's.
  await page.goto(`${origin}/?${view.route}=warm${hash}`, { waitUntil: 'commit' });
  await timeFirstContent(page, view.name, view.selectors);
  const opens: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    await page.goto(`${origin}/?${view.route}=${round}${hash}`, { waitUntil: 'commit' });
    opens.push(await timeFirstContent(page, view.name, view.selectors));
  }
  const open = summarize(opens);
  const counted = view.count
    ? `; ${await page.getAttribute(view.count.selector, view.count.attribute, { timeout: 5_000 }).catch(() => '?')} ${view.count.label}`
    : '';
  report.atMostSized(
    `${view.name}: first content p50`,
    size,
    open.p50,
    viewBudget(size),
    ms,
    `${view.shows}${counted}, from navigation start (page load included); max ${ms(open.max)}`,
  );
}

/** Upcoming's first content: its summary and the first deadline row listed. */
export const UPCOMING_VIEW: ViewContent = {
  name: 'Upcoming view',
  route: 'upcoming',
  selectors: ['.upcoming .summary[data-total]', '.upcoming tr[data-deadline-key]'],
  shows: 'first deadline row listed',
  count: {
    selector: '.upcoming .summary',
    attribute: 'data-total',
    label: `deadlines in the next ${DEFAULT_UPCOMING_HOURS} h (the real clock's)`,
  },
};

/** Reliability's: the first group row, and the selected group's weekly trend chart drawn (SVG paths). */
export const RELIABILITY_VIEW: ViewContent = {
  name: 'Reliability view',
  route: 'reliability',
  selectors: ['.reliability tr[data-group-key]', '.reliability .trend svg path'],
  shows: 'first group row and its trend chart drawn',
  count: {
    selector: '.reliability .summary',
    attribute: 'data-groups',
    label: `groups (the default: ${DEFAULT_STATS_GROUP_BY}, ${DEFAULT_STATS_DAYS} days)`,
  },
};

/**
 * Opens the sign-in link and waits until the window has landed (Triage or the datasets: its redirect
 * would otherwise replace the view asked for next). Once more if it did not: a renderer rebuilt by
 * someone else meanwhile leaves a page without its bundles.
 */
export async function signIn(page: Page, url: string): Promise<void> {
  const landed = /#\/orgs\/[^/]+\/(triage|datasets)/;
  for (let attempt = 1; ; attempt += 1) {
    await page.goto(url);
    try {
      await page.waitForURL(landed, { timeout: 30_000, waitUntil: 'commit' });
      return;
    } catch {
      if (attempt === 2) {
        const text = (await page.textContent('body').catch(() => null))?.trim().slice(0, 200) ?? '';
        throw new Error(
          `the window did not land on Triage or the datasets within 30 s: at ${page.url()} (${text})`,
        );
      }
    }
  }
}

/** Handoff's: the summary line and every section rendered (the first and the last of them). */
export const HANDOFF_VIEW: ViewContent = {
  name: 'Handoff view',
  route: 'handoff',
  selectors: [
    '.handoff [data-summary]',
    '.handoff section[data-section="newlyFailed"]',
    '.handoff section[data-section="outages"]',
  ],
  shows: `summary and every section rendered (the default: since ${DEFAULT_HANDOFF_HOURS} h)`,
};

/**
 * Opens `serve --ui` on `dataDir`, signs in and lands, then measures each view's first content. The
 * store of the data dir must not be held open by this process meanwhile (the server's engine owns it).
 */
async function viewFigures(
  dataDir: string,
  orgId: string,
  size: number,
  views: readonly ViewContent[],
  report: Report,
  log: (line: string) => void,
): Promise<void> {
  ensureRendererBuilt(log);
  log(`  ${views.map((view) => view.name).join(', ')} in Chromium (serve --ui)…`);
  const server = await startTsServer(
    'electron/cli/main.ts',
    ['serve', '--ui', '--port', '0', '--data-dir', dataDir],
    /Web UI: (http:\/\/\S+)/,
  );
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    await page.addInitScript('globalThis.__name = (fn) => fn');
    const origin = new URL(server.url).origin;
    await signIn(page, server.url);
    for (const view of views) await viewFigure(page, origin, orgId, size, view, report);
  } finally {
    await browser.close();
    await server.stop();
  }
}

/** The Reliability view on the statistics org (100 deliveries per dataset), its store closed here. */
export function reliabilityViewFigure(
  org: BenchOrg,
  report: Report,
  log: (line: string) => void,
): Promise<void> {
  return viewFigures(org.dataDir, org.orgId, org.size, [RELIABILITY_VIEW], report, log);
}
