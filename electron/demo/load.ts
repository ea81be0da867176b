/** Fills an org with generated demo data through the same write path as import. */
import type { Store } from '../store/database';
import { importSnapshot } from '../store/snapshot';
import { generateDemoSnapshot } from './generate';

export const DEMO_ORG = 'demo';

export interface LoadDemoOptions {
  orgId: string;
  datasets: number;
  seed: number;
  now: Date;
}

export interface DemoSummary {
  datasets: number;
  byStatus: Record<string, number>;
}

export function loadDemo(store: Store, options: LoadDemoOptions): DemoSummary {
  const snapshot = generateDemoSnapshot({
    datasets: options.datasets,
    seed: options.seed,
    now: options.now,
    orgId: options.orgId,
  });
  importSnapshot(
    store,
    options.orgId,
    { datasets: snapshot.datasets, tasks: new Map(Object.entries(snapshot.tasks ?? {})) },
    { now: options.now },
  );
  const byStatus: Record<string, number> = {};
  for (const record of snapshot.datasets) {
    const status = record.latestDeliveryStatus ?? 'UNKNOWN';
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
  return { datasets: snapshot.datasets.length, byStatus };
}

export function describeDemo(summary: DemoSummary, orgId: string): string {
  const counts = Object.entries(summary.byStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  return `Generated ${summary.datasets} datasets in org ${orgId} (${counts}).`;
}
