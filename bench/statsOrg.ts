/**
 * The reliability statistics' reference org (docs/architecture.md#performance-budgets, issue 14: "a 10k org with 100 deliveries
 * each"): a second store on its own temp data dir, measured in process, then closed and shown in the
 * window's Reliability view by a `serve --ui` of its own; removed afterwards.
 */
import { DEFAULT_DELIVERIES_PER_DATASET } from '../electron/store/tables/datasetWriter';
import { removeTempDir } from './cleanup';
import { statsFigures } from './knowledgeFigures';
import { type Report, ms } from './report';
import { reliabilityViewFigure } from './viewFigures';
import { createBenchOrg } from './setup';

export async function statsOrgFigures(
  size: number,
  report: Report,
  log: (line: string) => void,
): Promise<void> {
  const deliveries = DEFAULT_DELIVERIES_PER_DATASET;
  const org = await createBenchOrg(size, log, { deliveriesPerDataset: deliveries });
  try {
    report.info(
      `setup: org with ${deliveries} deliveries per dataset`,
      size,
      ms(org.setupMs + org.firstWriteMs + org.checkpointMs),
      'generate + import + first write + checkpoint; not a budget',
    );
    if (org.persistProblem) report.failed('setup: the statistics org on disk', size, org.persistProblem);
    await statsFigures(org.store, org.orgId, size, deliveries, report, log);
    // The window's own engine reads the data dir: this process lets go of its copy first.
    await org.store.close();
    await reliabilityViewFigure(org, report, log);
  } finally {
    log('  cleaning up the statistics org…');
    await org.store.close();
    removeTempDir(org.root);
  }
}
