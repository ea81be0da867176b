/**
 * What a sync's commit does after writing records or tasks straight into the store: groups the org's
 * troubles into incidents (electron/store/schema/incidents.ts). Call inside the transaction that wrote them.
 */
import type { DatasetRecord } from '../../shared/schemas';
import type { Stage } from '../../shared/status';
import type { Store } from '../../electron/store/database';
import { writeDataset, writeTasks } from '../../electron/store/tables/datasetWriter';
import { ensureOrg } from '../../electron/store/tables/orgs';
import { fixtureRecords, tasksFailingAt } from './fixtures';
import { listIncidents } from '../../electron/query/incidents';
import { DEFAULT_INCIDENT_GAP_MS, refreshIncidents } from '../../electron/store/schema/incidents';

export function regroup(store: Store, orgId: string, now: Date): void {
  refreshIncidents(store, orgId, { now, gapMs: DEFAULT_INCIDENT_GAP_MS });
}

/** The id of the one live incident of a cause (the tests' orgs have one per cause); throws otherwise. */
export function incidentOf(store: Store, orgId: string, causeId: string): string {
  const found = listIncidents(store, orgId).filter((incident) => incident.causeId === causeId);
  if (found.length !== 1) throw new Error(`${found.length} live incidents of cause ${causeId} in ${orgId}`);
  return found[0]!.incidentId;
}

/** A scripted failure (or recovery) of one dataset, written as a sync would. */
export interface Failure {
  id: string;
  supplier?: string;
  status?: 'FAILED' | 'MISSING' | 'HEALTHY';
  /** The delivery's deadline. */
  deadline: string;
  /** The delivery's own time (deliveredAt); null: none. */
  deliveredAt?: string | null;
  /** The failed task: its stage, code and end; 'not-stored': no tasks. */
  task?: { stage: Stage; code: string; endedAt: string | null } | 'not-stored';
  /** Another delivery id than `<id>-d1` (a dataset failing again). */
  deliveryId?: string;
}

/** Writes a scripted dataset with its one delivery (and tasks) into `orgId`, in one transaction. */
export function putFailure(store: Store, orgId: string, failure: Failure): void {
  const base = fixtureRecords(1, 3, failure.id)[0]!;
  const deliveryId = failure.deliveryId ?? `${failure.id}-d1`;
  const status = failure.status ?? 'FAILED';
  const supplier = failure.supplier ?? 'sup-a';
  const record: DatasetRecord = {
    ...base,
    datasetId: failure.id,
    datasetName: `Dataset ${failure.id}`,
    supplier: { id: supplier, name: `Supplier ${supplier}` },
    deliveryId,
    latestDeliveryStatus: status,
    deliveryEventList: [
      {
        ...base.deliveryEventList[0]!,
        status,
        deliveryId,
        deliveryDeadline: failure.deadline,
        deliveredAt: failure.deliveredAt === undefined ? null : failure.deliveredAt,
      },
    ],
  };
  store.transaction(() => {
    ensureOrg(store, orgId, new Date('2026-01-01T00:00:00Z'));
    writeDataset(store, orgId, record, { events: 'replace', deliveriesPerDataset: 100 });
    const task = failure.task ?? 'not-stored';
    if (task === 'not-stored' || status !== 'FAILED') return;
    const tasks = tasksFailingAt(deliveryId, failure.id, task.stage, task.code);
    const failed = tasks[task.stage].tasks[0]!;
    failed.taskEndedAt = task.endedAt;
    tasks[task.stage].timestamp = task.endedAt === null ? '2026-01-01T00:00:00.000Z' : task.endedAt;
    writeTasks(store, orgId, deliveryId, tasks);
  });
}
