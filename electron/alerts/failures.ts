/**
 * New failures (docs/architecture.md#notifications): what a finished cycle announces, what quiet hours held, and what a cause's
 * cool-down batched (coolDown.ts). Each decision is remembered (store/tables/announcements.ts, with a timeline
 * entry for what is announced) before the alerter emits it. Runs inside `store.whenIdle`.
 *
 * The steps plan drafts; `announceFailures` makes them once all of an evaluation's are known, so the
 * summary rule holds for the whole evaluation: more than SUMMARY_THRESHOLD failure notifications of an
 * org (releases and new failures together) make its notifications of causes and failures one summary of
 * their top causes (a first sync's or a night's summary stays apart). Each step
 * remembers its failures as it plans them (a release tells the cool-down clock its cause was notified
 * now, so the cycle's new failures of that cause wait), and `announceFailures` again with the title.
 * A failure batched or held that is acknowledged by its release (store/tables/acknowledgements.ts) is
 * remembered as 'acknowledged', never notified: someone is on it already.
 */
import type { CycleEvent } from '../../shared/sync';
import { batchedFailures, heldFailures, remember, unannouncedFailures } from '../store/tables/announcements';
import { failingCount } from '../query/incidents';
import type { Candidates } from './candidates';
import { type AlertsContext, paused, quiet, snoozedIds } from './context';
import { triageTarget, withCauses } from './causes';
import { acknowledgedOf } from './acknowledged';
import { CauseClock } from './coolDown';
import { ruleCycle } from './ruleCycle';
import { SUMMARY_THRESHOLD, planNotifications } from './grouping';
import { causeCounts, causeText, failedText, moreOfCauseText, summaryText, suppliersOf } from './text';
import type { Announcement, CausedFailure, FailedDataset, SummaryCause } from './types';

/**
 * A failure notification planned in an evaluation (its failures already remembered with `outcome`),
 * made by `announceFailures` unless the evaluation's are too many for one org.
 */
export interface Draft {
  orgId: string;
  failures: CausedFailure[];
  outcome: 'notified' | 'summarized' | 'first-sync';
  /** A first sync's or a night's summary: made as it is, whatever else the evaluation makes. */
  own: boolean;
  /** An urgent rule decided its failures (a summary it joins is urgent too). */
  urgent?: true;
  make: () => Announcement;
}

/** The draft as an urgent rule tells it. */
function madeUrgent(draft: Draft): Draft {
  return { ...draft, urgent: true, make: () => ({ ...draft.make(), urgent: true }) };
}

/**
 * Makes an evaluation's drafts, in order: each as planned, or for an org with more than
 * SUMMARY_THRESHOLD of them its notifications of causes and failures as one summary of their top causes
 * (a first sync's or a night's summary stays itself: it tells what failed before, or overnight, and is
 * never held back by a cool-down; so an org gets at most three). Remembers each with its title.
 */
export function announceFailures(ctx: AlertsContext, drafts: readonly Draft[]): Announcement[] {
  const made: Announcement[] = [];
  const orgIds = [...new Set(drafts.map((draft) => draft.orgId))];
  for (const orgId of orgIds) {
    const ofOrg = drafts.filter((draft) => draft.orgId === orgId);
    if (ofOrg.length <= SUMMARY_THRESHOLD) {
      for (const draft of ofOrg) {
        const announcement = draft.make();
        remember(ctx.store, draft.failures, draft.outcome, ctx.now, announcement.title);
        made.push(announcement);
      }
      continue;
    }
    for (const draft of ofOrg.filter((one) => one.own)) {
      const announcement = draft.make();
      remember(ctx.store, draft.failures, draft.outcome, ctx.now, announcement.title);
      made.push(announcement);
    }
    const joined = ofOrg.filter((draft) => !draft.own);
    const merged = joined.flatMap((draft) => draft.failures);
    if (merged.length === 0) continue;
    const announcement = summary(ctx, 'many', orgId, merged);
    if (joined.some((draft) => draft.urgent)) announcement.urgent = true;
    remember(ctx.store, merged, 'summarized', ctx.now, announcement.title);
    made.push(announcement);
  }
  return made;
}

const plain = (failure: CausedFailure): FailedDataset => ({
  orgId: failure.orgId,
  datasetId: failure.datasetId,
  datasetName: failure.datasetName,
  deliveryId: failure.deliveryId,
});

/**
 * Decides a cycle's new failures. Rules, in order: snoozed datasets silenced; acknowledged ones
 * remembered as 'acknowledged'; paused: all silenced;
 * quiet hours: held; the org's first sync: one summary; a cause notified less than COOL_DOWN_MS ago:
 * batched (released by `releaseBatched`); else grouped by cause (grouping.ts).
 */
export function decideCycle(
  ctx: AlertsContext,
  event: CycleEvent,
  /** The org's unannounced failures if read already with nothing committed since (`readCandidates`). */
  read?: Candidates,
): { drafts: Draft[]; notices: Announcement[]; remembered: boolean } {
  const { store, now } = ctx;
  const snoozed = snoozedIds(ctx, event.orgId);
  const candidates = read?.failures ?? unannouncedFailures(store, event.orgId);
  const silenced = candidates.filter((dataset) => snoozed.has(dataset.datasetId));
  const awake = candidates.filter((dataset) => !snoozed.has(dataset.datasetId));
  remember(store, silenced, 'snoozed', now);
  // Acknowledged before its first word (say, between a crash and the next cycle): someone is on it.
  const { acknowledged, rest: unruled } = acknowledgedOf(store, event.orgId, awake);
  remember(store, acknowledged, 'acknowledged', now);
  // The org's notification rules (ruleCycle.ts): what they send to the tray is told below; the cycle's
  // other events are the tray's notices; the rest is silent, gathered or sent elsewhere.
  const ruling = ruleCycle(ctx, event, withCauses(store, event.orgId, unruled), snoozed, {
    quiet: paused(ctx) || quiet(ctx),
  });
  const caused = ruling.told;
  const drafts: Draft[] = [];
  if (paused(ctx)) {
    remember(store, caused, 'paused', now);
  } else if (quiet(ctx)) {
    remember(store, caused, 'held', now);
  } else if (caused.length > 0) {
    if (event.firstSync) drafts.push(summarize(ctx, 'first-sync', event.orgId, caused));
    else {
      const clock = CauseClock.read(store, event.orgId, now);
      remember(
        store,
        caused.filter((failure) => clock.cooling(failure.incidentId)),
        'batched',
        now,
      );
      const fresh = caused.filter((failure) => !clock.cooling(failure.incidentId));
      // An urgent rule's failures are told apart, so the others do not take on its alarm.
      const urgent = fresh.filter((failure) => failure.rule.action === 'urgent');
      drafts.push(
        ...notify(
          ctx,
          event.orgId,
          fresh.filter((failure) => failure.rule.action !== 'urgent'),
          false,
        ),
        ...notify(ctx, event.orgId, urgent, false).map(madeUrgent),
      );
    }
  }
  return { drafts, notices: ruling.notices, remembered: candidates.length > 0 || ruling.sent.length > 0 };
}

/**
 * The failures a cool-down batched whose cause has been quiet for COOL_DOWN_MS (the alerter looks at
 * every cycle and tick, before the cycle's own): per org, one notification per cause saying how many
 * more failed (a cause with one is that failure's own notification; more than SUMMARY_THRESHOLD
 * notifications, one summary). Paused now: silenced; quiet hours: held for their summary; a dataset
 * snoozed meanwhile: silenced. A batched failure that recovered meanwhile is still told (it failed); one
 * acknowledged meanwhile is not (remembered as 'acknowledged').
 */
export function releaseBatched(ctx: AlertsContext): { drafts: Draft[]; remembered: boolean } {
  const { store, now } = ctx;
  const batched = batchedFailures(store);
  if (batched.length === 0) return { drafts: [], remembered: false };
  let remembered = false;
  const made: Draft[] = [];
  for (const orgId of new Set(batched.map((failure) => failure.orgId))) {
    const ofOrg = withCauses(
      store,
      orgId,
      batched.filter((failure) => failure.orgId === orgId),
    );
    const clock = CauseClock.read(store, orgId, now);
    const ripe = ofOrg.filter((failure) => !clock.cooling(failure.incidentId));
    if (ripe.length === 0) continue;
    remembered = true;
    const { acknowledged, rest: due } = acknowledgedOf(store, orgId, ripe);
    remember(store, acknowledged, 'acknowledged', now);
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
    made.push(...notify(ctx, orgId, rest, true));
  }
  return { drafts: made, remembered };
}

/**
 * Plans the notifications of failures grouped by cause (grouping.ts) and remembers them. `more`: they
 * were batched by a cool-down, so a cause's notification says how many more failed and how many fail now.
 */
function notify(ctx: AlertsContext, orgId: string, failures: CausedFailure[], more: boolean): Draft[] {
  return planNotifications(failures).map((plan) => {
    // Read now, with the failures it tells of: the draft is made later.
    const failingNow =
      plan.kind === 'cause' ? failingCount(ctx.store, orgId, plan.failures[0]!.incidentId) : 0;
    const draft: Draft =
      plan.kind === 'failed'
        ? {
            orgId,
            failures: [plan.failure],
            outcome: 'notified',
            own: false,
            make: () => single(ctx, plan.failure),
          }
        : plan.kind === 'cause'
          ? {
              orgId,
              failures: plan.failures,
              outcome: 'notified',
              own: false,
              make: () => ofCause(ctx, orgId, plan.failures, failingNow, more),
            }
          : {
              orgId,
              failures: plan.failures,
              outcome: 'summarized',
              own: false,
              make: () => summary(ctx, 'many', orgId, plan.failures),
            };
    remember(ctx.store, draft.failures, draft.outcome, ctx.now);
    return draft;
  });
}

/**
 * Once quiet hours are over: the held failures, one summary per org (silenced while paused or snoozed;
 * one acknowledged meanwhile is remembered as 'acknowledged', not told).
 */
export function releaseHeld(ctx: AlertsContext): { drafts: Draft[]; remembered: boolean } {
  const { store, now } = ctx;
  if (quiet(ctx)) return { drafts: [], remembered: false };
  const held = heldFailures(store);
  if (held.length === 0) return { drafts: [], remembered: false };
  const made: Draft[] = [];
  for (const orgId of new Set(held.map((dataset) => dataset.orgId))) {
    const { acknowledged, rest: ofOrg } = acknowledgedOf(
      store,
      orgId,
      held.filter((dataset) => dataset.orgId === orgId),
    );
    remember(store, acknowledged, 'acknowledged', now);
    if (paused(ctx)) {
      remember(store, ofOrg, 'paused', now);
      continue;
    }
    const snoozed = snoozedIds(ctx, orgId);
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
  return { drafts: made, remembered: true };
}

function summarize(ctx: AlertsContext, cause: SummaryCause, orgId: string, failures: CausedFailure[]): Draft {
  // A first sync's summary tells what was failing already: it starts no cause's cool-down, so the first
  // failure of such a cause afterwards is news, told at once (coolDown.ts).
  const outcome = cause === 'first-sync' ? 'first-sync' : 'summarized';
  remember(ctx.store, failures, outcome, ctx.now);
  return { orgId, failures, outcome, own: true, make: () => summary(ctx, cause, orgId, failures) };
}

function single(ctx: AlertsContext, failure: CausedFailure): Announcement {
  const dataset = plain(failure);
  return {
    kind: 'failed',
    dataset,
    reason: failure.reason,
    incidentId: failure.incidentId,
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
  /** The incident's failures FAILED now. */
  failingNow: number,
  more: boolean,
): Announcement {
  const [first] = failures as [CausedFailure, ...CausedFailure[]];
  return {
    kind: 'cause',
    orgId,
    incidentId: first.incidentId,
    causeId: first.causeId,
    causeTitle: first.causeTitle,
    suppliers: suppliersOf(failures),
    datasets: failures.map(plain),
    more,
    failingNow,
    ...(more ? moreOfCauseText(failures, failingNow) : causeText(failures)),
    target: triageTarget(orgId, first),
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
