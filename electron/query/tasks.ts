/** The tasks of one delivery, grouped by stage (DESIGN.md §2 "Delivery tasks"). */
import type { TasksRecord } from '../../shared/schemas';
import { STAGES } from '../../shared/status';
import type { Store } from '../store/database';
import { hasDelivery } from '../store/datasetWriter';

export type TasksResult =
  { found: true; json: string } | { found: false; reason: 'unknown-delivery' | 'tasks-not-synced' };

/** The stored record keeps `runId` in every task's details; it is shown only when asked for. */
function withoutRunIds(json: string): string {
  const record = JSON.parse(json) as TasksRecord;
  for (const stage of STAGES) for (const task of record[stage].tasks) delete task.details.runId;
  return JSON.stringify(record);
}

export function getDeliveryTasks(
  store: Store,
  orgId: string,
  deliveryId: string,
  includeRunDetails: boolean,
): TasksResult {
  const json = store.value<string>('SELECT json FROM delivery_tasks WHERE org_id = ? AND delivery_id = ?', [
    orgId,
    deliveryId,
  ]);
  if (json !== undefined && hasDelivery(store, orgId, deliveryId)) {
    return { found: true, json: includeRunDetails ? json : withoutRunIds(json) };
  }
  return {
    found: false,
    reason: hasDelivery(store, orgId, deliveryId) ? 'tasks-not-synced' : 'unknown-delivery',
  };
}
