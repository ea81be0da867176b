/**
 * The window's budgets (docs/architecture.md#performance-budgets) in Chromium against `serve --ui` on the benchmark org: from
 * opening the datasets view (a page load) to its first rows, from a status-chip change to the
 * updated table (the new total shown and the first row of the new query on screen), and from opening
 * the Triage view (a page load) to its first content (every cause listed, the worst one first).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { listIncidents } from '../electron/query/incidents';
import { DEFAULT_HANDOFF_HOURS } from '../shared/handoff';
import { DEFAULT_STATS_DAYS, DEFAULT_STATS_GROUP_BY } from '../shared/reliability';
import { DEFAULT_UPCOMING_HOURS } from '../shared/upcoming';
import { findRendererDir } from '../electron/rpc/rendererDir';
import { launchChromium } from '../test/helpers/chromium';
import { BUDGET } from './budgets';
import { PROJECT_ROOT, startTsServer } from './children';
import { type Report, ms } from './report';
import type { BenchOrg } from './setup';
import { summarize } from './stats';

const ROUNDS = 9;

/** The newest modification time under `dir` (ms), 0 when it does not exist. */
function newestIn(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((newest, entry) => Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

/** Whether the built renderer is missing or older than its sources (a view added since the last build). */
function rendererStale(): boolean {
  try {
    const built = statSync(join(findRendererDir(), 'index.html')).mtimeMs;
    return ['renderer/src', 'shared'].some((dir) => newestIn(join(PROJECT_ROOT, dir)) > built);
  } catch {
    return true;
  }
}

function ensureRendererBuilt(log: (line: string) => void): void {
  if (!rendererStale()) return;
  log('  building the renderer (npm run build: missing or older than its sources)…');
  try {
    execFileSync(
      process.execPath,
      [join(PROJECT_ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'],
      { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
  } catch (error) {
    // Sources being edited may not build: an earlier build still measures what it holds.
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    try {
      findRendererDir();
    } catch {
      throw new Error(`the renderer does not build: ${stderr.split('\n').slice(-3).join(' ')}`);
    }
    log(`  the renderer does not build now (${stderr.split('\n').at(-1)}); measuring the last build`);
  }
}

type PageElement = { getAttribute(name: string): string | null; click(): void } | null;
type PageGlobals = {
  document: { body: unknown; querySelector(selector: string): PageElement; title: string };
  MutationObserver: new (callback: () => void) => {
    observe(target: unknown, options: object): void;
    disconnect(): void;
  };
  requestAnimationFrame(callback: () => void): void;
};

/**
 * In the page: optionally clicks `chip`, then resolves with the ms from the click (or from navigation
 * start) until the table shows `total` datasets with a first row of `firstStatus`, and a frame was drawn.
 * Timed inside the page, so the automation's own latency is not counted.
 */
function timeTable(page: Page, chip: string | null, total: number, firstStatus: string): Promise<number> {
  return page.evaluate(
    ([chipName, expected, status]) =>
      new Promise<number>((resolve, reject) => {
        // Runs in the page; this file type-checks against Node's globals, hence the cast.
        const page = globalThis as unknown as PageGlobals;
        const start = chipName === null ? 0 : performance.now();
        const shows = (): boolean =>
          page.document.querySelector('.summary')?.getAttribute('data-total') === expected &&
          page.document.querySelector('tr[data-dataset-id] [data-status]')?.getAttribute('data-status') ===
            status;
        const done = (): void => page.requestAnimationFrame(() => resolve(performance.now() - start));
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
        if (chipName !== null) page.document.querySelector(`[data-chip="${chipName}"]`)?.click();
        else if (shows()) {
          observer.disconnect();
          done();
        }
        setTimeout(
          () => reject(new Error(`the table did not show ${expected} datasets within 30 s`)),
          30_000,
        );
      }),
    [chip, String(total), firstStatus] as const,
  );
}

/**
 * In the page: resolves with the ms from navigation start until the Triage view lists `causes` causes
 * with `firstCause` on top, and a frame was drawn. Timed inside the page, as `timeTable`.
 */
function timeTriage(page: Page, causes: number, firstCause: string | null): Promise<number> {
  return page.evaluate(
    ([expected, first]) =>
      new Promise<number>((resolve, reject) => {
        const page = globalThis as unknown as PageGlobals;
        const shows = (): boolean =>
          page.document.querySelector('[data-causes]')?.getAttribute('data-causes') === expected &&
          (first === null ||
            page.document.querySelector('section[data-incident-id]')?.getAttribute('data-incident-id') ===
              first);
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
        setTimeout(() => reject(new Error(`Triage did not list ${expected} incidents within 30 s`)), 30_000);
      }),
    [String(causes), firstCause] as const,
  );
}

export async function rendererFigures(
  org: BenchOrg,
  report: Report,
  log: (line: string) => void,
): Promise<void> {
  ensureRendererBuilt(log);
  log('  the window in Chromium (serve --ui)…');
  const counts = org.store.all(
    'SELECT status, count(*) AS n FROM datasets WHERE org_id = ? GROUP BY status',
    [org.orgId],
  );
  const missing = Number(counts.find((row) => row.status === 'MISSING')?.n ?? 0);
  const server = await startTsServer(
    'electron/cli/main.ts',
    ['serve', '--ui', '--port', '0', '--data-dir', org.dataDir],
    /Web UI: (http:\/\/\S+)/,
  );
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    // tsx names functions with an __name helper; the functions evaluated in the page need it too.
    await page.addInitScript('globalThis.__name = (fn) => fn');
    const origin = new URL(server.url).origin;
    const hash = `#/orgs/${org.orgId}/datasets`;
    const view = `${origin}/${hash}`;
    // Signs in (the link's token); the window lands on Triage when anything is FAILED or MISSING.
    await signIn(page, server.url);
    await page.goto(view);
    await timeTable(page, null, org.size, 'FAILED');

    const opens: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      // A new document each round (the query before the hash changes): from navigation start.
      await page.goto(`${origin}/?round=${round}${hash}`, { waitUntil: 'commit' });
      opens.push(await timeTable(page, null, org.size, 'FAILED'));
    }
    const open = summarize(opens);
    report.atMost(
      'window: open datasets view → first rows p50',
      org.size,
      open.p50,
      BUDGET.rendererOpenMs,
      ms,
      {
        note: `from navigation start (page load included); max ${ms(open.max)}`,
      },
    );

    await page.goto(view);
    await timeTable(page, null, org.size, 'FAILED');
    const changes: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [total, first] of [
        [missing, 'MISSING'],
        [org.size, 'FAILED'],
      ] as const) {
        changes.push(await timeTable(page, 'MISSING', total, first));
        if (process.env.DH_BENCH_DEBUG) console.error(first, changes.at(-1));
      }
    }
    const change = summarize(changes);
    report.atMost(
      'window: filter change → updated table p50',
      org.size,
      change.p50,
      BUDGET.rendererFilterMs,
      ms,
      {
        note: `status chip on/off, from the click to the drawn frame; max ${ms(change.max)}`,
      },
    );

    const causes = listIncidents(org.store, org.orgId);
    const triageHash = `#/orgs/${org.orgId}/triage`;
    const triageOpens: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      await page.goto(`${origin}/?triage=${round}${triageHash}`, { waitUntil: 'commit' });
      triageOpens.push(await timeTriage(page, causes.length, causes[0]?.incidentId ?? null));
    }
    const triage = summarize(triageOpens);
    report.atMost('Triage view: first content p50', org.size, triage.p50, BUDGET.viewFirstContentMs, ms, {
      note: `${causes.length} incidents listed, from navigation start (page load included); max ${ms(triage.max)}`,
    });

    for (const view of [UPCOMING_VIEW, HANDOFF_VIEW])
      await viewFigure(page, origin, org.orgId, org.size, view, report);
  } finally {
    await browser.close();
    await server.stop();
  }
}

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
async function viewFigure(
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
  report.atMost(`${view.name}: first content p50`, size, open.p50, BUDGET.viewFirstContentMs, ms, {
    note: `${view.shows}${counted}, from navigation start (page load included); max ${ms(open.max)}`,
  });
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
async function signIn(page: Page, url: string): Promise<void> {
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
