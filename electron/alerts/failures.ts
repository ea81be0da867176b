/**
 * New failures (DESIGN.md §5): what a finished cycle announces, what quiet hours held, and what a cause's
 * cool-down batched (coolDown.ts). Each decision is remembered (store/announcements.ts, with a timeline
 * entry for what is announced) before the engine emits it. Runs inside `store.whenIdle`.
 */
import type { Cause } from '../../shared/causes';
import type { CycleEvent } from '../../shared/sync';
import { batchedFailures, heldFailures, remember, unannouncedFailures } from '../store/announcements';
import { datasetName } from '../query/dataset';
import { listCauses } from '../query/causes';
import { type AlertsContext, paused, quiet, snoozedIds } from './context';
import { withCauses } from './causes';
import { CauseClock } from './coolDown';
import { planNotifications } from './grouping';
import {
  causeCounts,
  causeText,
  failedText,
  moreOfCauseText,
  recoveredText,
  summaryText,
  suppliersOf,
} from './text';
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
 * quiet hours: held; the org's first sync: one summary; a cause notified less than COOL_DOWN_MS ago:
 * batched (released by `releaseBatched`); else grouped by cause (grouping.ts).
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
    const causes = listCauses(store, event.orgId);
    const caused = withCauses(store, event.orgId, rest, causes);
    if (event.firstSync) announcements.push(summarize(ctx, 'first-sync', event.orgId, caused));
    else {
      const clock = CauseClock.read(store, event.orgId, now, causes);
      remember(
        store,
        caused.filter((failure) => clock.cooling(failure.causeId)),
        'batched',
        now,
      );
      const fresh = caused.filter((failure) => !clock.cooling(failure.causeId));
      announcements.push(...notify(ctx, event.orgId, fresh, causes, false));
    }
  }
  const recovered = recoveries(ctx, event, snoozed);
  if (recovered) announcements.push(recovered);
  return { announcements, remembered: candidates.length > 0 };
}

/**
 * The failures a cool-down batched whose cause has been quiet for COOL_DOWN_MS (the engine looks at
 * every cycle and tick, before the cycle's own): per org, one notification per cause saying how many
 * more failed (a cause with one is that failure's own notification; more than SUMMARY_THRESHOLD
 * notifications, one summary). Paused now: silenced; quiet hours: held for their summary; a dataset
 * snoozed meanwhile: silenced. A batched failure that recovered meanwhile is still told (it failed).
 */
export function releaseBatched(ctx: AlertsContext): { announcements: Announcement[]; remembered: boolean } {
  const { store, now } = ctx;
  const batched = batchedFailures(store);
  if (batched.length === 0) return { announcements: [], remembered: false };
  let remembered = false;
  const made: Announcement[] = [];
  for (const orgId of new Set(batched.map((failure) => failure.orgId))) {
    const causes = listCauses(store, orgId);
    const ofOrg = withCauses(
      store,
      orgId,
      batched.filter((failure) => failure.orgId === orgId),
      causes,
    );
    const clock = CauseClock.read(store, orgId, now, causes);
    const due = ofOrg.filter((failure) => !clock.cooling(failure.causeId));
    if (due.length === 0) continue;
    remembered = true;
    if (paused(ctx)) {
      remember(store, due, 'paused', now);
      continue;
    }
    if (quiet(ctx)) {
      remember(store, due, 'held', now);
      continue;
    }
    const snoozed = snoozedIds(ctx, orgId);
    remember(
      store,
      due.filter((failure) => snoozed.has(failure.datasetId)),
      'snoozed',
      now,
    );
    const rest = due.filter((failure) => !snoozed.has(failure.datasetId));
    made.push(...notify(ctx, orgId, rest, causes, true));
  }
  return { announcements: made, remembered };
}

/**
 * Notifies failures grouped by cause (grouping.ts) and remembers them. `more`: they were batched by a
 * cool-down, so a cause's notification says how many more failed and how many fail now.
 */
function notify(
  ctx: AlertsContext,
  orgId: string,
  failures: CausedFailure[],
  causes: readonly Cause[],
  more: boolean,
): Announcement[] {
  const made: Announcement[] = [];
  for (const plan of planNotifications(failures)) {
    const announcement =
      plan.kind === 'failed'
        ? single(ctx, plan.failure)
        : plan.kind === 'cause'
          ? ofCause(ctx, orgId, plan.failures, causes, more)
          : summary(ctx, 'many', orgId, plan.failures);
    remember(
      ctx.store,
      plan.kind === 'failed' ? [plan.failure] : plan.failures,
      plan.kind === 'summary' ? 'summarized' : 'notified',
      ctx.now,
      announcement.title,
    );
    made.push(announcement);
  }
  return made;
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
  // A first sync's summary tells what was failing already: it starts no cause's cool-down, so the first
  // failure of such a cause afterwards is news, told at once (coolDown.ts).
  const outcome = cause === 'first-sync' ? 'first-sync' : 'summarized';
  remember(ctx.store, failures, outcome, ctx.now, announcement.title);
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

function ofCause(
  ctx: AlertsContext,
  orgId: string,
  failures: CausedFailure[],
  causes: readonly Cause[],
  more: boolean,
): Announcement {
  const [first] = failures as [CausedFailure, ...CausedFailure[]];
  const failingNow =
    causes.find((cause) => cause.causeId === first.causeId)?.datasets.filter((d) => d.status === 'FAILED')
      .length ?? 0;
  return {
    kind: 'cause',
    orgId,
    causeId: first.causeId,
    causeTitle: first.causeTitle,
    suppliers: suppliersOf(failures),
    datasets: failures.map(plain),
    more,
    failingNow,
    ...(more ? moreOfCauseText(failures, failingNow) : causeText(failures)),
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
