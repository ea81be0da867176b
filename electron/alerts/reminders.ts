/**
 * Reminders (docs/architecture.md#reminders): a failure someone was told of (notified, or in a summary), or that arrived
 * during a pause and was silenced by it, that is still FAILED with that delivery and that nobody
 * acknowledged is reminded every `reminderMinutes` (0: never) after it was announced (or remembered as
 * paused) or last reminded, at most MAX_REMINDERS times: a pause's failure whose first reminder fell due
 * during the pause is reminded at the first evaluation after it, like any other (docs/decisions.md). None for a snoozed dataset, none
 * while paused or in quiet hours: what fell due meanwhile is reminded once they end, and the count goes
 * on. The failures due at one tick are grouped by cause: one reminder per cause, or one for all when
 * there are more than SUMMARY_THRESHOLD causes. Runs inside `store.whenIdle`.
 */
import { MAX_REMINDERS, rememberReminder, remindableFailures } from '../store/tables/announcements';
import { type AlertsContext, paused, quiet, snoozedIds } from './context';
import { triageTarget, withCauses } from './causes';
import { SUMMARY_THRESHOLD, groupByCause } from './grouping';
import { causeCounts, reminderText } from './text';
import type { Announcement, CausedFailure } from './types';

const MINUTE = 60_000;

/** Decides and remembers the reminders due now for these orgs. */
export function decideReminders(ctx: AlertsContext, orgIds: readonly string[]): Announcement[] {
  const minutes = ctx.settings.triage.reminderMinutes;
  if (minutes <= 0 || paused(ctx) || quiet(ctx)) return [];
  const made: Announcement[] = [];
  for (const orgId of orgIds) {
    const snoozed = snoozedIds(ctx, orgId);
    // Last told of at least `minutes` ago (ISO times, as remembered, compare as text).
    const toldBefore = new Date(ctx.now.getTime() - minutes * MINUTE).toISOString();
    const due = remindableFailures(ctx.store, orgId, toldBefore).filter(
      (failure) => !snoozed.has(failure.datasetId),
    );
    if (due.length === 0) continue;
    const nth = new Map(due.map((failure) => [failure.deliveryId, failure.reminders + 1]));
    const groups = groupByCause(withCauses(ctx.store, orgId, due));
    const batches = groups.length > SUMMARY_THRESHOLD ? [groups.flat()] : groups;
    for (const failures of batches) {
      const announcement = reminder(ctx, orgId, failures, nth);
      rememberReminder(ctx.store, failures, ctx.now, announcement.title);
      made.push(announcement);
    }
  }
  return made;
}

function reminder(
  ctx: AlertsContext,
  orgId: string,
  failures: CausedFailure[],
  nth: Map<string, number>,
): Announcement {
  const causes = causeCounts(failures);
  const [only] = causes;
  // The furthest along: "reminder 3 of 3" says this is the last for some of them.
  const count = Math.max(...failures.map((failure) => nth.get(failure.deliveryId) ?? 1));
  return {
    kind: 'reminder',
    orgId,
    causes,
    datasets: failures.map(({ orgId: org, datasetId, datasetName, deliveryId }) => ({
      orgId: org,
      datasetId,
      datasetName,
      deliveryId,
    })),
    ...reminderText(failures, causes, count, MAX_REMINDERS),
    target: causes.length === 1 && only ? triageTarget(orgId, only) : { view: 'triage', orgId },
    at: ctx.now.toISOString(),
  };
}
