/**
 * A dataset's health record at one instant, from its plan and the schedule's occurrences.
 */
import type { DatasetRecord } from '../../shared/schemas';
import { attemptAt, type Attempt } from './attempt';
import { iso } from './format';
import type { DatasetPlan } from './plan';
import type { Occurrences } from './schedule';
import { drawCourse } from './attemptCourse';

export interface DatasetState {
  record: DatasetRecord;
  /** Newest first, as in `record.deliveryEventList`. */
  attempts: Attempt[];
}

/** Newest first: by deadline, then by delivery time (undelivered last). */
export function compareAttempts(a: Attempt, b: Attempt): number {
  return b.course.deadline - a.course.deadline || (b.deliveredAt ?? -Infinity) - (a.deliveredAt ?? -Infinity);
}

/**
 * The last `count` attempts at `now`: one per occurrence at or before `now`, plus the attempt for
 * the next deadline once it has started (it is then the newest, IN_PROGRESS or already settled).
 */
export function deriveAttempts(
  plan: DatasetPlan,
  now: number,
  count: number,
  occurrences: Occurrences,
): Attempt[] {
  const attempts: Attempt[] = [];
  const deadlines = occurrences.past.slice(Math.max(0, occurrences.past.length - count));
  if (occurrences.next !== null) deadlines.push(occurrences.next);
  for (const deadline of deadlines) {
    const attempt = attemptAt(drawCourse(plan, deadline), now, plan.schedule);
    if (attempt !== null) attempts.push(attempt);
  }
  return attempts.sort(compareAttempts).slice(0, count);
}

/**
 * The record for `attempts` (any order). `latestDeliveryStatus` is the newest settled attempt's
 * status; `latestDeliveryTimestamp` is that attempt's delivery time, or its deadline when nothing
 * was delivered (MISSING, FAILED), so the field always says when the reported status applies.
 */
export function buildDatasetRecord(
  plan: DatasetPlan,
  attempts: readonly Attempt[],
  next: number | null,
): DatasetRecord {
  const ordered = [...attempts].sort(compareAttempts);
  const settled = ordered.find((attempt) => attempt.settled);
  return {
    legacyDatasetId: plan.legacyDatasetId,
    datasetId: plan.datasetId,
    datasetName: plan.datasetName,
    cduId: plan.cduId,
    cduName: plan.cduName,
    dataProductId: plan.dataProductId,
    dataProductName: plan.dataProductName,
    ownerOrgId: plan.ownerOrgId,
    supplier: { ...plan.supplier },
    currentProcessingDeadlineConfig: plan.schedule,
    deliveryId: ordered[0]?.course.deliveryId ?? null,
    deliveryEventList: ordered.map((attempt) => attempt.event),
    latestDeliveryStatus: settled?.status ?? null,
    latestDeliveryTimestamp: settled ? iso(settled.deliveredAt ?? settled.course.deadline) : null,
    nextExpectedDeliveryTimestamp: iso(next),
  };
}

/** The dataset at `now` with its last `count` attempts. */
export function deriveDataset(
  plan: DatasetPlan,
  now: Date | number,
  count: number,
  occurrences: Occurrences,
): DatasetState {
  const nowMs = typeof now === 'number' ? now : now.getTime();
  const attempts = deriveAttempts(plan, nowMs, count, occurrences);
  return { record: buildDatasetRecord(plan, attempts, occurrences.next), attempts };
}
