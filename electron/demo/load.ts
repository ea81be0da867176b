/**
 * Fills an org with generated demo data through the store's write path, one dataset at a time inside
 * one transaction (100k datasets never sit in memory as one snapshot).
 */
import type { Store } from '../store/database';
import {
  DEFAULT_DELIVERIES_PER_DATASET,
  pruneTasks,
  writeDataset,
  writeTasks,
} from '../store/tables/datasetWriter';
import { DEFAULT_INCIDENT_GAP_MS, refreshIncidents } from '../store/schema/incidents';
import { ensureOrg } from '../store/tables/orgs';
import { generateDemoDatasets } from './generate';

export interface LoadDemoOptions {
  orgId: string;
  datasets: number;
  seed: number;
  now: Date;
  /** Delivery events generated per dataset (default: the generator's 30; the store keeps up to 100). */
  deliveriesPerDataset?: number;
}

export interface DemoSummary {
  datasets: number;
  byStatus: Record<string, number>;
}

export function loadDemo(store: Store, options: LoadDemoOptions): DemoSummary {
  const byStatus: Record<string, number> = {};
  let datasets = 0;
  store.transaction(() => {
    ensureOrg(store, options.orgId, options.now);
    for (const { record, tasks } of generateDemoDatasets({
      datasets: options.datasets,
      seed: options.seed,
      now: options.now,
      orgId: options.orgId,
      deliveriesPerDataset: options.deliveriesPerDataset,
    })) {
      writeDataset(store, options.orgId, record, {
        events: 'replace',
        deliveriesPerDataset: DEFAULT_DELIVERIES_PER_DATASET,
      });
      for (const [deliveryId, record] of Object.entries(tasks))
        writeTasks(store, options.orgId, deliveryId, record);
      const status = record.latestDeliveryStatus ?? 'UNKNOWN';
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      datasets += 1;
    }
    pruneTasks(store, options.orgId);
    refreshIncidents(store, options.orgId, { now: options.now, gapMs: DEFAULT_INCIDENT_GAP_MS });
  });
  return { datasets, byStatus };
}

export function describeDemo(summary: DemoSummary, orgId: string): string {
  const counts = Object.entries(summary.byStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  return `Generated ${summary.datasets} datasets in org ${orgId} (${counts}).`;
}
