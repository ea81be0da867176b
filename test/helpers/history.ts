/**
 * Datasets with a constructed delivery history, stored the way the app stores them (the sync's own
 * commit), for the deadline clock, Upcoming and overdue tests: each test states a schedule and a
 * history and expects what a person would compute from them by hand.
 */
import { storedDatasetIds } from '../../electron/query/storedHealth';
import type { Store } from '../../electron/store/database';
import { applySync } from '../../electron/sync/apply';
import { ChangeSet, defaultSpoolOptions } from '../../electron/sync/changes';
import type { DatasetRecord, DeadlineConfig } from '../../shared/schemas';

export interface PastDelivery {
  deadline: string;
  deliveredAt: string | null;
  status: string;
}

export interface HistorySpec {
  id: string;
  name?: string;
  supplier?: { id: string; name: string };
  product?: string;
  /** The schedule: a cron expression (5, 6 or 7 fields) and its zone ("" = UTC). */
  cron: string;
  timezone?: string;
  /** Newest first, as the remote lists them. */
  deliveries: PastDelivery[];
}

export function scheduleConfig(cron: string, timezone = ''): DeadlineConfig {
  return {
    minute: '',
    hour: '',
    dayOfTheMonth: '',
    month: '',
    dayOfWeek: '',
    year: '',
    timezone,
    cronExpression: cron,
  };
}

export function historyRecord(spec: HistorySpec): DatasetRecord {
  const config = scheduleConfig(spec.cron, spec.timezone);
  const latest = spec.deliveries[0];
  return {
    legacyDatasetId: null,
    datasetId: spec.id,
    datasetName: spec.name ?? spec.id,
    cduId: 'cdu-1',
    cduName: 'CDU 1',
    dataProductId: `dp-${spec.product ?? 'Prices'}`,
    dataProductName: spec.product ?? 'Prices',
    ownerOrgId: 'owner-1',
    supplier: spec.supplier ?? { id: 'sup-1', name: 'Bluefin Exchange Feeds' },
    currentProcessingDeadlineConfig: config,
    deliveryId: latest ? `${spec.id}-0` : null,
    deliveryEventList: spec.deliveries.map((delivery, i) => ({
      status: delivery.status,
      deliveryDeadline: delivery.deadline,
      deliveredAt: delivery.deliveredAt,
      processingDeadlineConfig: config,
      deliveryId: `${spec.id}-${i}`,
    })),
    latestDeliveryStatus: latest?.status ?? null,
    latestDeliveryTimestamp: latest?.deliveredAt ?? null,
    nextExpectedDeliveryTimestamp: null,
  };
}

/** Daily deliveries back from `newestDeadline` (newest first), each `offsetMinutes` after its deadline. */
export function dailyDeliveries(
  newestDeadline: string,
  entries: { status: string; offsetMinutes: number | null }[],
): PastDelivery[] {
  const newest = Date.parse(newestDeadline);
  return entries.map(({ status, offsetMinutes }, i) => {
    const deadline = newest - i * 86_400_000;
    return {
      deadline: new Date(deadline).toISOString(),
      deliveredAt: offsetMinutes === null ? null : new Date(deadline + offsetMinutes * 60_000).toISOString(),
      status,
    };
  });
}

/** One sync cycle of the org that received these datasets, at `now` (the app's own commit). */
export async function syncHistories(
  store: Store,
  orgId: string,
  specs: HistorySpec[],
  now: Date,
): Promise<void> {
  const changes = new ChangeSet(defaultSpoolOptions());
  specs.forEach((spec, i) =>
    changes.add({ record: historyRecord(spec), hash: `${spec.id}-${now.getTime()}-${i}` }, 100),
  );
  const stored = new Map(storedDatasetIds(store, orgId).map((id) => [id, true]));
  await applySync(store, { orgId, changes, stored, now, deliveriesPerDataset: 100 });
}
