/**
 * The tasks of one delivery, grouped by stage (docs/api.md#delivery-tasks), as both doors read them:
 * the v2 tasks route and the window's `delivery.tasks` call, with the same read-through to the remote for
 * tasks never synced.
 */
import { STAGES } from '../../shared/status';
import type { Store } from '../store/database';
import { hasDelivery } from '../store/tables/datasetWriter';
import { unpackTasks } from '../store/schema/tasksBlob';

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

export interface TasksRequest {
  orgId: string;
  deliveryId: string;
  includeRunDetails: boolean;
}

/**
 * Reads the tasks of a delivery; if they were never synced, reads them through the remote once and
 * looks again. `answer` runs in the same idle moment as the read it answers from, so what a door sends
 * (a body and its `ETag`) belongs to one data revision.
 */
export async function readDeliveryTasks<T>(
  store: Store,
  request: TasksRequest,
  readThrough: TasksReadThrough | undefined,
  answer: (result: TasksResult) => T,
): Promise<T> {
  const read = () => getDeliveryTasks(store, request.orgId, request.deliveryId, request.includeRunDetails);
  const first = await store.whenReadable(() => {
    const result = read();
    const remote = readThrough && !result.found && result.reason === 'tasks-not-synced';
    return remote ? undefined : { answered: answer(result) };
  });
  if (first) return first.answered;
  await readThrough?.(request.orgId, request.deliveryId);
  return store.whenReadable(() => answer(read()));
}
