/**
 * The window's budgets (DESIGN.md §10) in Chromium against `serve --ui` on the benchmark org: from
 * opening the datasets view (a page load) to its first rows, and from a status-chip change to the
 * updated table (the new total shown and the first row of the new query on screen).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { type Page, chromium } from 'playwright-core';
import { findRendererDir } from '../electron/rpc/rendererDir';
import { BUDGET } from './budgets';
import { PROJECT_ROOT, startTsServer } from './children';
import { type Report, ms } from './report';
import type { BenchOrg } from './setup';
import { summarize } from './stats';

const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ROUNDS = 9;

function ensureRendererBuilt(log: (line: string) => void): void {
  try {
    findRendererDir();
  } catch {
    log('  building the renderer (npm run build)…');
    execFileSync(
      process.execPath,
      [join(PROJECT_ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'],
      {
        cwd: PROJECT_ROOT,
        stdio: 'ignore',
      },
    );
  }
}

/** Resolves once the table shows `total` rows' summary and its first row has `firstStatus`. */
function tableShows(page: Page, total: number, firstStatus: string): Promise<unknown> {
  return page.waitForFunction(
    ([expected, status]) => {
      // Runs in the page; this file type-checks against Node's globals, hence the cast.
      type Element = { getAttribute(name: string): string | null } | null;
      const { document } = globalThis as unknown as {
        document: { querySelector(selector: string): Element };
      };
      return (
        document.querySelector('.summary')?.getAttribute('data-total') === expected &&
        document.querySelector('tr[data-dataset-id] [data-status]')?.getAttribute('data-status') === status
      );
    },
    [String(total), firstStatus] as const,
    { timeout: 30_000, polling: 'raf' },
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
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
  try {
    const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    const origin = new URL(server.url).origin;
    const hash = `#/orgs/${org.orgId}/datasets`;
    const view = `${origin}/${hash}`;
    await page.goto(server.url);
    await tableShows(page, org.size, 'FAILED');

    const opens: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const started = performance.now();
      await page.goto(`${origin}/?round=${round}${hash}`);
      await page.waitForSelector('tr[data-dataset-id]', { timeout: 30_000 });
      opens.push(performance.now() - started);
    }
    const open = summarize(opens);
    report.atMost(
      'window: open datasets view → first rows p50',
      org.size,
      open.p50,
      BUDGET.rendererOpenMs,
      ms,
      {
        note: `page load included; max ${ms(open.max)}`,
      },
    );

    await page.goto(view);
    await tableShows(page, org.size, 'FAILED');
    const changes: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [total, first] of [
        [missing, 'MISSING'],
        [org.size, 'FAILED'],
      ] as const) {
        const started = performance.now();
        await page.locator('[data-chip="MISSING"]').click();
        await tableShows(page, total, first);
        changes.push(performance.now() - started);
        if (process.env.DH_BENCH_DEBUG) {
          console.error(first, Math.round(performance.now() - started));
          await page.waitForTimeout(3000);
        }
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
        note: `status chip on/off; max ${ms(change.max)}`,
      },
    );
  } finally {
    await browser.close();
    await server.stop();
  }
}
