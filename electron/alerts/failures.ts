/**
 * New failures (DESIGN.md §5): what a finished cycle announces, and what quiet hours held. Each decision
 * is remembered (store/announcements.ts, with a timeline entry for what is announced) before the engine
 * emits it. Runs inside `store.whenIdle`.
 */
import type { CycleEvent } from '../../shared/sync';
import { heldFailures, remember, unannouncedFailures } from '../store/announcements';
import { datasetName } from '../query/dataset';
import { type AlertsContext, paused, quiet, snoozedIds } from './context';
import { withCauses } from './causes';
import { planNotifications } from './grouping';
import { causeCounts, causeText, failedText, recoveredText, summaryText, suppliersOf } from './text';
import type { Announcement, CausedFailure, FailedDataset, SummaryCause } from './types';

const RECOVERED_FROM = new Set(['FAILED', 'MISSING']);
const RECOVERED_TO = new Set(['HEALTHY', 'DELIVERED_LATE']);

const plain = (failure: CausedFailure): FailedDataset => ({
  orgId: failure.orgId,
  datasetId: failure.datasetId,
  datasetName: failure.datasetName,
  deliveryId: failure.deliveryId,
});

/**
 * Decides a cycle's new failures. Rules, in order: snoozed datasets silenced; paused: all silenced;
 * quiet hours: held; the org's first sync: one summary; else grouped by cause (grouping.ts).
 */
export function decideCycle(
  ctx: AlertsContext,
  event: CycleEvent,
): { announcements: Announcement[]; remembered: boolean } {
  const { store, now } = ctx;
  const snoozed = snoozedIds(ctx, event.orgId);
  const candidates = unannouncedFailures(store, event.orgId);
  const silenced = candidates.filter((dataset) => snoozed.has(dataset.datasetId));
  const rest = candidates.filter((dataset) => !snoozed.has(dataset.datasetId));
  remember(store, silenced, 'snoozed', now);
  const announcements: Announcement[] = [];
  if (paused(ctx)) {
    remember(store, rest, 'paused', now);
  } else if (quiet(ctx)) {
    remember(store, rest, 'held', now);
  } else if (rest.length > 0) {
    const caused = withCauses(store, event.orgId, rest);
    if (event.firstSync) announcements.push(summarize(ctx, 'first-sync', event.orgId, caused));
    else
      for (const plan of planNotifications(caused)) {
        const announcement =
          plan.kind === 'failed'
            ? single(ctx, plan.failure)
            : plan.kind === 'cause'
              ? ofCause(ctx, event.orgId, plan.failures)
              : summary(ctx, 'many', event.orgId, plan.failures);
        remember(
          store,
          plan.kind === 'failed' ? [plan.failure] : plan.failures,
          plan.kind === 'summary' ? 'summarized' : 'notified',
          now,
          announcement.title,
        );
        announcements.push(announcement);
      }
  }
  const recovered = recoveries(ctx, event, snoozed);
  if (recovered) announcements.push(recovered);
  return { announcements, remembered: candidates.length > 0 };
}

/** Once quiet hours are over: the held failures, one summary per org (silenced while paused or snoozed). */
export function releaseHeld(ctx: AlertsContext): Announcement[] {
  const { store, now } = ctx;
  if (quiet(ctx)) return [];
  const held = heldFailures(store);
  if (held.length === 0) return [];
  if (paused(ctx)) {
    remember(store, held, 'paused', now);
    return [];
  }
  const made: Announcement[] = [];
  for (const orgId of new Set(held.map((dataset) => dataset.orgId))) {
    const snoozed = snoozedIds(ctx, orgId);
    const ofOrg = held.filter((dataset) => dataset.orgId === orgId);
    remember(
      store,
      ofOrg.filter((dataset) => snoozed.has(dataset.datasetId)),
      'snoozed',
      now,
    );
    const rest = ofOrg.filter((dataset) => !snoozed.has(dataset.datasetId));
    if (rest.length === 0) continue;
    made.push(summarize(ctx, 'quiet-hours', orgId, withCauses(store, orgId, rest)));
  }
  return made;
}

function summarize(
  ctx: AlertsContext,
  cause: SummaryCause,
  orgId: string,
  failures: CausedFailure[],
): Announcement {
  const announcement = summary(ctx, cause, orgId, failures);
  remember(ctx.store, failures, 'summarized', ctx.now, announcement.title);
  return announcement;
}

function single(ctx: AlertsContext, failure: CausedFailure): Announcement {
  const dataset = plain(failure);
  return {
    kind: 'failed',
    dataset,
    reason: failure.reason,
    causeId: failure.causeId,
    ...failedText(dataset, failure.reason),
    target: {
      view: 'delivery',
      orgId: dataset.orgId,
      datasetId: dataset.datasetId,
      deliveryId: dataset.deliveryId,
    },
    at: ctx.now.toISOString(),
  };
}

function ofCause(ctx: AlertsContext, orgId: string, failures: CausedFailure[]): Announcement {
  const [first] = failures as [CausedFailure, ...CausedFailure[]];
  return {
    kind: 'cause',
    orgId,
    causeId: first.causeId,
    causeTitle: first.causeTitle,
    suppliers: suppliersOf(failures),
    datasets: failures.map(plain),
    ...causeText(failures),
    target: { view: 'triage', orgId, causeId: first.causeId },
    at: ctx.now.toISOString(),
  };
}

function summary(
  ctx: AlertsContext,
  cause: SummaryCause,
  orgId: string,
  failures: CausedFailure[],
): Announcement {
  const datasets = failures.map(plain);
  const causes = causeCounts(failures);
  return {
    kind: 'summary',
    cause,
    orgId,
    datasets,
    causes,
    ...summaryText(cause, orgId, datasets, causes),
    // A burst opens its causes; a first sync's or a night's summary the FAILED list, as before.
    target: cause === 'many' ? { view: 'triage', orgId } : { view: 'failed', orgId },
    at: ctx.now.toISOString(),
  };
}

/** Recovery notices (opt-in): FAILED or MISSING datasets that delivered again, as one notice a cycle. */
function recoveries(ctx: AlertsContext, event: CycleEvent, snoozed: Set<string>): Announcement | null {
  if (!ctx.settings.notifications.recoveryNotices || event.firstSync) return null;
  if (paused(ctx) || quiet(ctx)) return null;
  const recovered = event.transitions.filter(
    (t) =>
      t.from !== null &&
      t.to !== null &&
      RECOVERED_FROM.has(t.from) &&
      RECOVERED_TO.has(t.to) &&
      !snoozed.has(t.datasetId),
  );
  if (recovered.length === 0) return null;
  const datasets = recovered.map((t) => ({
    datasetId: t.datasetId,
    datasetName: datasetName(ctx.store, event.orgId, t.datasetId),
    from: t.from!,
    to: t.to!,
  }));
  const [only] = datasets;
  return {
    kind: 'recovered',
    orgId: event.orgId,
    datasets,
    ...recoveredText(datasets),
    target:
      datasets.length === 1 && only
        ? { view: 'dataset', orgId: event.orgId, datasetId: only.datasetId }
        : { view: 'datasets', orgId: event.orgId },
    at: ctx.now.toISOString(),
  };
}
