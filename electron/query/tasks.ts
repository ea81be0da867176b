/** The tasks of one delivery, grouped by stage (DESIGN.md §2 "Delivery tasks"). */
import { STAGES } from '../../shared/status';
import type { Store } from '../store/database';
import { hasDelivery } from '../store/datasetWriter';
import { unpackTasks } from '../store/tasksBlob';

/**
 * Fetches and stores the tasks of a delivery from the org's remote when the store lacks them; false when
 * that cannot be done now. The sync provides it; the doors that read tasks take it as an argument.
 */
export type TasksReadThrough = (orgId: string, deliveryId: string) => Promise<boolean>;

export type TasksResult =
  { found: true; json: string } | { found: false; reason: 'unknown-delivery' | 'tasks-not-synced' };

export function getDeliveryTasks(
  store: Store,
  orgId: string,
  deliveryId: string,
  includeRunDetails: boolean,
): TasksResult {
  if (!hasDelivery(store, orgId, deliveryId)) return { found: false, reason: 'unknown-delivery' };
  const blob = store.value<Uint8Array>(
    'SELECT json FROM delivery_tasks WHERE org_id = ? AND delivery_id = ?',
    [orgId, deliveryId],
  );
  if (blob === undefined) return { found: false, reason: 'tasks-not-synced' };
  const record = unpackTasks(blob);
  // The store keeps `runId` in every task's details; it is shown only when asked for.
  if (!includeRunDetails)
    for (const stage of STAGES) for (const task of record[stage].tasks) delete task.details.runId;
  return { found: true, json: JSON.stringify(record) };
}
