/**
 * Notifications grouped by cause (docs/architecture.md#grouping-by-incident): a pure decision over the new failures of one cycle that
 * the earlier rules (snooze, pause, quiet hours, first sync) left to notify. A cause with two or more of
 * them is one notification; a cause with one is that failure's own; more than SUMMARY_THRESHOLD
 * notifications in all are one summary of the top causes instead.
 */
import type { CausedFailure } from './types';

/** More notifications than this in one cycle make one summary. */
export const SUMMARY_THRESHOLD = 3;

export type NotificationPlan =
  | { kind: 'failed'; failure: CausedFailure }
  | { kind: 'cause'; incidentId: string; failures: CausedFailure[] }
  | { kind: 'summary'; failures: CausedFailure[] };

/** The failures by cause: the largest cause first, then in the order the failures came (by name). */
export function groupByCause(failures: readonly CausedFailure[]): CausedFailure[][] {
  const groups = new Map<string, CausedFailure[]>();
  for (const failure of failures) {
    const group = groups.get(failure.incidentId);
    if (group) group.push(failure);
    else groups.set(failure.incidentId, [failure]);
  }
  // Array.prototype.sort is stable: equal sizes keep their first failure's order.
  return [...groups.values()].sort((a, b) => b.length - a.length);
}

/** What to notify for these failures (none: nothing). */
export function planNotifications(failures: readonly CausedFailure[]): NotificationPlan[] {
  if (failures.length === 0) return [];
  const plans = groupByCause(failures).map((group): NotificationPlan => {
    const [only] = group;
    return group.length === 1 && only
      ? { kind: 'failed', failure: only }
      : { kind: 'cause', incidentId: group[0]!.incidentId, failures: group };
  });
  return plans.length > SUMMARY_THRESHOLD ? [{ kind: 'summary', failures: [...failures] }] : plans;
}
