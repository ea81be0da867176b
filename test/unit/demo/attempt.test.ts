/**
 * What a live simulator relies on: an attempt re-derived at a later instant is the same attempt,
 * further along, and its tasks only move forward.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveAttempt } from '../../../electron/demo/attempt';
import { generateDatasetPlan } from '../../../electron/demo/plan';
import { Rng } from '../../../electron/demo/random';
import { occurrencesUpTo } from '../../../electron/demo/schedule';
import { buildTasksRecord } from '../../../electron/demo/tasks';
import { STAGES } from '../../../shared/status';

const HOUR = 3_600_000;
const FINAL = new Set(['HEALTHY', 'DELIVERED_LATE', 'FAILED']);
/** Task status → the statuses it may become later. */
const TASK_NEXT: Record<string, readonly string[]> = {
  PENDING: ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'SKIPPED'],
  RUNNING: ['RUNNING', 'SUCCEEDED', 'FAILED'],
  SUCCEEDED: ['SUCCEEDED'],
  FAILED: ['FAILED'],
  SKIPPED: ['SKIPPED'],
};

describe('deriveAttempt over time', () => {
  it('moves each attempt forward consistently as now advances', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (seed, index, failRate) => {
          const plan = generateDatasetPlan(index, { seed, failRate });
          const [deadline] = occurrencesUpTo(plan.schedule, Date.parse('2026-06-15T12:00:00Z'), 1);
          expect(deadline).toBeDefined();
          let previous: string | null = null;
          let previousTasks: string[] | null = null;
          for (let offset = -6 * HOUR; offset <= 80 * HOUR; offset += HOUR / 3) {
            const now = deadline! + offset;
            const attempt = deriveAttempt(plan, deadline!, now);
            const status = attempt?.status ?? null;
            if (status === null) expect(now).toBeLessThan(deadline!);
            else
              expect(attempt!.event.deliveryId).toBe(
                deriveAttempt(plan, deadline!, deadline! + 1)!.event.deliveryId,
              );
            if (previous !== null && FINAL.has(previous)) expect(status).toBe(previous);
            if (previous === 'MISSING') expect(status).not.toBe('HEALTHY');
            if (previous === 'IN_PROGRESS') expect(status === null || status === 'MISSING').toBe(false);
            if (attempt) {
              const tasks = buildTasksRecord(plan, attempt.course, now);
              const statuses = STAGES.flatMap((stage) => tasks[stage].tasks.map((t) => t.status ?? ''));
              previousTasks?.forEach((before, i) => expect(TASK_NEXT[before]).toContain(statuses[i]));
              previousTasks = statuses;
            }
            previous = status;
          }
        },
      ),
      { numRuns: 50 },
    );
  });

  it('uses the given random stream when one is passed', () => {
    const plan = generateDatasetPlan(3, { seed: 9 });
    const [deadline] = occurrencesUpTo(plan.schedule, Date.parse('2026-06-15T12:00:00Z'), 1);
    const now = deadline! + 48 * HOUR;
    const a = deriveAttempt(plan, new Date(deadline!), new Date(now), new Rng(123));
    const b = deriveAttempt(plan, deadline!, now, new Rng(123));
    expect(a).toEqual(b);
    expect(a?.event.deliveryId).toBe(deriveAttempt(plan, deadline!, now)?.event.deliveryId);
  });
});
