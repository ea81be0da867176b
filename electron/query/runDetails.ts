/**
 * Run details of delivery events (`includeRunDetails=true`): as stored when the remote or an import gave
 * them, otherwise derived from the delivery's stored tasks, otherwise empty.
 */
import type { DatasetRecord, RunDetail, TasksRecord } from '../../shared/schemas';
import { STAGES } from '../../shared/status';
import type { Store } from '../store/database';
import { unpackTasks } from '../store/schema/tasksBlob';

/** One entry per stage that has tasks: its first runId, its status, earliest start and latest end. */
export function runDetailsFromTasks(tasks: TasksRecord): RunDetail[] {
  return STAGES.flatMap((stage) => {
    const group = tasks[stage];
    if (group.tasks.length === 0) return [];
    const starts = group.tasks.map((t) => t.taskStartedAt).filter((t): t is string => t !== null);
    const ends = group.tasks.map((t) => t.taskEndedAt).filter((t): t is string => t !== null);
    return [
      {
        stage,
        runId: group.tasks.find((t) => t.details.runId)?.details.runId ?? null,
        status: group.status,
        startedAt: starts.length ? starts.reduce((a, b) => (a < b ? a : b)) : null,
        endedAt: ends.length ? ends.reduce((a, b) => (a > b ? a : b)) : null,
      },
    ];
  });
}

/** Fills the events whose runDetails the SQL left null (none stored) from their tasks, in place. */
export function completeRunDetails(store: Store, orgId: string, record: DatasetRecord): DatasetRecord {
  for (const event of record.deliveryEventList) {
    if (event.runDetails) continue;
    const blob =
      event.deliveryId === null
        ? undefined
        : store.value<Uint8Array>('SELECT json FROM delivery_tasks WHERE org_id = ? AND delivery_id = ?', [
            orgId,
            event.deliveryId,
          ]);
    event.runDetails = blob === undefined ? [] : runDetailsFromTasks(unpackTasks(blob));
  }
  return record;
}
