/**
 * A delivery attempt as seen at one instant: its status derived from its course (docs/architecture.md#how-health-is-derived,
 * "How health is derived") and the delivery event the API reports for it.
 *
 * - FAILED: a failed step ended the attempt (the failure has happened by `now`).
 * - HEALTHY / DELIVERED_LATE: dispatch finished by `now`, at or before / after the deadline.
 * - MISSING: the deadline has been reached and ingestion has not begun.
 * - IN_PROGRESS: ingestion has begun and the attempt has not ended. This includes an attempt whose
 *   deadline has already passed (it can only end DELIVERED_LATE or FAILED, and settles as such);
 *   until then `latestDeliveryStatus` keeps showing the newest settled attempt.
 */
import type { DeadlineConfig, DeliveryEvent } from '../../shared/schemas';
import { iso, isoShared } from './format';
import type { DatasetPlan } from './plan';
import type { Rng } from './random';
import { drawCourse, type AttemptCourse } from './attemptCourse';

export type AttemptStatus = 'HEALTHY' | 'DELIVERED_LATE' | 'MISSING' | 'FAILED' | 'IN_PROGRESS';

export interface Attempt {
  course: AttemptCourse;
  status: AttemptStatus;
  /** Every status but IN_PROGRESS is settled (MISSING may still turn DELIVERED_LATE later). */
  settled: boolean;
  /** Delivery time (epoch ms) when HEALTHY or DELIVERED_LATE, else null. */
  deliveredAt: number | null;
  event: DeliveryEvent;
}

/** The status at `now`, or null for an attempt whose deadline is ahead and which has not started. */
export function attemptStatus(course: AttemptCourse, now: number): AttemptStatus | null {
  if (course.startAt === null || course.startAt > now) return course.deadline <= now ? 'MISSING' : null;
  if (course.settleAt !== null && course.settleAt <= now) {
    if (course.failedStep >= 0) return 'FAILED';
    return course.endAt !== null && course.endAt <= course.deadline ? 'HEALTHY' : 'DELIVERED_LATE';
  }
  return 'IN_PROGRESS';
}

/** The event for a course at `now`; null when the attempt has not begun and its deadline is ahead. */
export function attemptAt(course: AttemptCourse, now: number, schedule: DeadlineConfig): Attempt | null {
  const status = attemptStatus(course, now);
  if (status === null) return null;
  const deliveredAt = status === 'HEALTHY' || status === 'DELIVERED_LATE' ? course.endAt : null;
  return {
    course,
    status,
    settled: status !== 'IN_PROGRESS',
    deliveredAt,
    event: {
      status,
      deliveryDeadline: isoShared(course.deadline),
      deliveredAt: iso(deliveredAt),
      // Shared with the record's currentProcessingDeadlineConfig and the other events (read-only).
      processingDeadlineConfig: schedule,
      deliveryId: course.deliveryId,
    },
  };
}

/**
 * The attempt of `plan` due at `deadline`, as seen at `now`. Without `rng` the attempt's own
 * stream is used, so the same attempt re-derived at a later `now` has moved on consistently.
 * Null for a future deadline whose attempt has not started yet.
 */
export function deriveAttempt(
  plan: DatasetPlan,
  deadline: Date | number,
  now: Date | number,
  rng?: Rng,
): Attempt | null {
  const deadlineMs = typeof deadline === 'number' ? deadline : deadline.getTime();
  const nowMs = typeof now === 'number' ? now : now.getTime();
  return attemptAt(drawCourse(plan, deadlineMs, rng), nowMs, plan.schedule);
}
