/** Every figure for one reference org size, added to the report as it is measured. */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE } from '../electron/store/files';
import { BUDGET, judgedAt } from './budgets';
import { removeTempDir } from './cleanup';
import { measureDataset, measureFiltered, measureList, measurePersist, measureTasks } from './inProcess';
import { type Report, megabytes, ms, ratio, sizeLabel } from './report';
import { rendererFigures } from './rendererFigures';
import { serveFigures, type ServeOptions } from './serveFigures';
import { type BenchOrg, createBenchOrg } from './setup';

/** List p50s by label, kept per size so 100k can be compared with 10k. */
export type ListP50s = Map<string, number>;

const SORTS = [
  { label: 'default order', sort: '' },
  { label: 'sort=latestDeliveryStatus', sort: 'latestDeliveryStatus' },
];

export async function measureSize(
  size: number,
  report: Report,
  options: ServeOptions,
  at10k: ListP50s | undefined,
): Promise<ListP50s> {
  const org = await createBenchOrg(size, options.log);
  try {
    report.info('setup (generate + import)', size, ms(org.setupMs), 'not a budget');
    report.info('database file', size, megabytes(statSync(join(org.dataDir, DATABASE_FILE)).size));
    const listP50s = await inProcessFigures(org, report, options.log, at10k);
    // A debounced write (the list stored its page-token secret) must not land during the HTTP runs.
    await org.store.flush();
    await serveFigures(org, report, options);
    // The window's budgets are stated at 10k; at 100k it loads ten times the rows for the same view.
    if (judgedAt(size)) await rendererFigures(org, report, options.log);
    return listP50s;
  } finally {
    options.log(`  cleaning up…`);
    await org.store.close();
    removeTempDir(org.root);
  }
}

async function inProcessFigures(
  org: BenchOrg,
  report: Report,
  log: (line: string) => void,
  at10k: ListP50s | undefined,
): Promise<ListP50s> {
  const { size, store, orgId } = org;
  log(`  persist…`);
  const persist = await measurePersist(store, 10);
  report.atMost('persist p50 (flush after a small change)', size, persist.p50, BUDGET.persistMs, ms, {
    judged: judgedAt(size),
    note: `max ${ms(persist.max)}; first full write ${ms(org.firstWriteMs)}`,
  });

  const listP50s: ListP50s = new Map();
  for (const { label, sort } of SORTS) {
    log(`  list pages, ${label}…`);
    const figures = measureList(store, orgId, size, sort);
    const rows = [
      { what: `list first page p50, ${label}`, key: `first ${label}`, summary: figures.first, walk: '' },
      {
        what: `list deep pages p50 (tokens), ${label}`,
        key: `deep ${label}`,
        summary: figures.deep,
        walk: `; walked ${figures.pages} pages in ${ms(figures.walkMs)}`,
      },
    ];
    for (const row of rows) {
      listP50s.set(row.key, row.summary.p50);
      report.atMost(row.what, size, row.summary.p50, BUDGET.listP50Ms, ms, {
        note: `p99 ${ms(row.summary.p99)}${row.walk}`,
      });
      const base = at10k?.get(row.key);
      if (size > 10_000 && base !== undefined) {
        report.atMost(
          `${row.what}, ${sizeLabel(size)}/10k`,
          size,
          row.summary.p50 / base,
          BUDGET.listScaling,
          ratio,
          {
            note: '"no slower than at 10k" (20% noise allowance)',
          },
        );
      }
    }
  }

  log(`  filtered pages…`);
  for (const field of ['deliveryId', 'supplierId'] as const) {
    const filtered = measureFiltered(store, orgId, field);
    report.atMost(`list page p50, filter ${field}.eq`, size, filtered.p50, BUDGET.listP50Ms, ms, {
      note: `p99 ${ms(filtered.p99)}`,
    });
  }

  log(`  one dataset and delivery tasks…`);
  const dataset = measureDataset(store, orgId);
  report.atMost('one dataset p50', size, dataset.p50, BUDGET.datasetP50Ms, ms, {
    note: `p99 ${ms(dataset.p99)}`,
  });
  const tasks = measureTasks(store, orgId);
  report.atMost('delivery tasks p50 (FAILED deliveries)', size, tasks.p50, BUDGET.tasksP50Ms, ms, {
    note: `p99 ${ms(tasks.p99)}`,
  });
  return listP50s;
}
