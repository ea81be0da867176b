/**
 * The window's budgets (docs/architecture.md#performance-budgets) in Chromium against `serve --ui` on the benchmark org: from
 * opening the datasets view (a page load) to its first rows, from a status-chip change to the
 * updated table (the new total shown and the first row of the new query on screen), from opening
 * the Triage view (a page load) to its first content (the summary counting every incident, the worst
 * one drawn first; the cards below the fold follow over the next frames), and the Upcoming and Handoff
 * views' first content (Reliability's too where the bench builds no statistics org).
 */
import type { Page } from 'playwright-core';
import { listIncidents } from '../electron/query/incidents';
import { launchChromium } from '../test/helpers/chromium';
import { type PageGlobals, ROUNDS, ensureRendererBuilt } from './browserPage';
import { viewBudget, windowFilterBudget, windowOpenBudget } from './budgets';
import { startTsServer } from './children';
import { type Report, ms } from './report';
import type { BenchOrg } from './setup';
import { summarize } from './stats';
import { HANDOFF_VIEW, RELIABILITY_VIEW, UPCOMING_VIEW, signIn, viewFigure } from './viewFigures';

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
  /** Also the Reliability view, on this org (where no statistics org of its own is built). */
  options: { reliability: boolean },
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
    report.atMostSized(
      'window: open datasets view → first rows p50',
      org.size,
      open.p50,
      windowOpenBudget(org.size),
      ms,
      `from navigation start (page load included); max ${ms(open.max)}`,
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
    report.atMostSized(
      'window: filter change → updated table p50',
      org.size,
      change.p50,
      windowFilterBudget(org.size),
      ms,
      `status chip on/off, from the click to the drawn frame; max ${ms(change.max)}`,
    );

    const causes = listIncidents(org.store, org.orgId);
    const triageHash = `#/orgs/${org.orgId}/triage`;
    const triageOpens: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      await page.goto(`${origin}/?triage=${round}${triageHash}`, { waitUntil: 'commit' });
      triageOpens.push(await timeTriage(page, causes.length, causes[0]?.incidentId ?? null));
    }
    const triage = summarize(triageOpens);
    report.atMostSized(
      'Triage view: first content p50',
      org.size,
      triage.p50,
      viewBudget(org.size),
      ms,
      `${causes.length} incidents listed, from navigation start (page load included); max ${ms(triage.max)}`,
    );

    const views = options.reliability
      ? [
          UPCOMING_VIEW,
          { ...RELIABILITY_VIEW, name: 'Reliability view (30 deliveries per dataset)' },
          HANDOFF_VIEW,
        ]
      : [UPCOMING_VIEW, HANDOFF_VIEW];
    for (const view of views) await viewFigure(page, origin, org.orgId, org.size, view, report);
  } finally {
    await browser.close();
    await server.stop();
  }
}
