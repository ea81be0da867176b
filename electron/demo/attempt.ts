/**
 * A delivery attempt as seen at one instant: its status derived from its timeline (docs/architecture.md#how-health-is-derived,
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
import { drawTimeline, type AttemptTimeline } from './timeline';

export type AttemptStatus = 'HEALTHY' | 'DELIVERED_LATE' | 'MISSING' | 'FAILED' | 'IN_PROGRESS';

export interface Attempt {
  timeline: AttemptTimeline;
  status: AttemptStatus;
  /** Every status but IN_PROGRESS is settled (MISSING may still turn DELIVERED_LATE later). */
  settled: boolean;
  /** Delivery time (epoch ms) when HEALTHY or DELIVERED_LATE, else null. */
  deliveredAt: number | null;
  event: DeliveryEvent;
}

/** The status at `now`, or null for an attempt whose deadline is ahead and which has not started. */
export function attemptStatus(timeline: AttemptTimeline, now: number): AttemptStatus | null {
  if (timeline.startAt === null || timeline.startAt > now) return timeline.deadline <= now ? 'MISSING' : null;
  if (timeline.settleAt !== null && timeline.settleAt <= now) {
    if (timeline.failedStep >= 0) return 'FAILED';
    return timeline.endAt !== null && timeline.endAt <= timeline.deadline ? 'HEALTHY' : 'DELIVERED_LATE';
  }
  return 'IN_PROGRESS';
}

/** The event for a timeline at `now`; null when the attempt has not begun and its deadline is ahead. */
export function attemptAt(timeline: AttemptTimeline, now: number, schedule: DeadlineConfig): Attempt | null {
  const status = attemptStatus(timeline, now);
  if (status === null) return null;
  const deliveredAt = status === 'HEALTHY' || status === 'DELIVERED_LATE' ? timeline.endAt : null;
  return {
    timeline,
    status,
    settled: status !== 'IN_PROGRESS',
    deliveredAt,
    event: {
      status,
      deliveryDeadline: isoShared(timeline.deadline),
      deliveredAt: iso(deliveredAt),
      // Shared with the record's currentProcessingDeadlineConfig and the other events (read-only).
      processingDeadlineConfig: schedule,
      deliveryId: timeline.deliveryId,
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
  return attemptAt(drawTimeline(plan, deadlineMs, rng), nowMs, plan.schedule);
}
