/** Delivery statuses in the order the service sorts them (docs/api.md#list). */
export const DELIVERY_STATUSES = ['FAILED', 'MISSING', 'DELIVERED_LATE', 'HEALTHY'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const STAGES = ['ingest', 'normalize', 'process', 'dispatch'] as const;
export type Stage = (typeof STAGES)[number];

/** A stage's name in words (the window, notifications). */
export const STAGE_LABELS: Record<Stage, string> = {
  ingest: 'Ingest',
  normalize: 'Normalize',
  process: 'Process',
  dispatch: 'Dispatch',
};

export const TASK_STATUSES = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'SKIPPED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Rank of a status when sorting ascending: the four known ones, then any other value. */
export function statusRank(status: string): number {
  const index = (DELIVERY_STATUSES as readonly string[]).indexOf(status);
  return index === -1 ? DELIVERY_STATUSES.length : index;
}

export function isDeliveryStatus(value: string): value is DeliveryStatus {
  return (DELIVERY_STATUSES as readonly string[]).includes(value);
}

/**
 * A stage's status from its tasks: FAILED if any failed, else RUNNING if any runs, else PENDING if
 * any pends or there are none, else SKIPPED if all were skipped, else SUCCEEDED.
 */
export function stageStatus(taskStatuses: readonly string[]): TaskStatus {
  if (taskStatuses.includes('FAILED')) return 'FAILED';
  if (taskStatuses.includes('RUNNING')) return 'RUNNING';
  if (taskStatuses.length === 0 || taskStatuses.includes('PENDING')) return 'PENDING';
  if (taskStatuses.every((s) => s === 'SKIPPED')) return 'SKIPPED';
  return 'SUCCEEDED';
}
