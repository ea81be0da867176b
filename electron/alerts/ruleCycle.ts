/**
 * A cycle's facts through the org's rules, live (docs/decisions.md "Rule notifications: one
 * evaluator"): the new failures the alerts are about to tell of, and (after the org's first sync) the
 * cycle's other status changes — MISSING, late, recovered. The evaluator (ruleRun.ts) decides; this
 * records what it sent before anything is told, gathers what digest rules wait for, and returns what the
 * tray makes of it: the failures its rules send to the tray (told by failures.ts, grouped and calmed as
 * before) and one notice per other notification for the tray.
 *
 * A first sync tells what was failing already, not what happened: its failures are judged for the tray's
 * summary, and nothing is sent to routes or recorded as sent.
 */
import { type Rule, TRAY_ROUTE } from '../../shared/rules';
import type { StatusTransition } from '../../shared/sync';
import { rememberRuled } from '../store/tables/announcements';
import { acknowledgedNow } from './acknowledged';
import type { AlertsContext } from './context';
import { sendRuleNotifications } from './ruleSend';
import { gather } from './digests';
import { type RuleFact, factsOfChanges } from './ruleFacts';
import { type RuleNotification, judge } from './ruleRun';
import { elsewhereWhy, rulesOf, silentWhy } from './ruling';
import type { Announcement, CausedFailure } from './types';

/** A failure the rules send to the tray, with the rule that does. */
export interface RuledFailure extends CausedFailure {
  rule: Rule;
}

export interface CycleRuling {
  /** The failures for the tray. */
  told: RuledFailure[];
  /** Notices of the cycle's other events for the tray (paused or quiet: none). */
  notices: Announcement[];
  /** Everything the rules sent. */
  sent: RuleNotification[];
}

/** The rule events among a cycle's status changes besides new failures (a snoozed dataset's left out). */
const otherChanges = (transitions: readonly StatusTransition[], snoozed: Set<string>): StatusTransition[] =>
  transitions.filter((change) => change.to !== 'FAILED' && !snoozed.has(change.datasetId));

export function ruleCycle(
  ctx: AlertsContext,
  cycle: { orgId: string; firstSync: boolean; transitions: readonly StatusTransition[]; learnedAt?: string },
  failures: readonly CausedFailure[],
  snoozed: Set<string>,
  tray: { quiet: boolean },
): CycleRuling {
  const { store, now } = ctx;
  // The moment the changes were written (their timeline entries' time), as the replay reads it.
  const at = cycle.learnedAt ?? now.toISOString();
  const matcher = rulesOf(ctx, cycle.orgId);
  const failed = factsOfChanges(
    store,
    cycle.orgId,
    failures.map(({ datasetId, deliveryId }) => ({ datasetId, from: null, to: 'FAILED', deliveryId })),
    at,
  );
  const acknowledged = acknowledgedNow(store);
  const others = cycle.firstSync
    ? []
    : factsOfChanges(store, cycle.orgId, otherChanges(cycle.transitions, snoozed), at).filter(
        (fact) => !acknowledged(fact),
      );
  const judged = judge(matcher, [...failed, ...others], at);
  const byKey = new Map(failures.map((failure) => [`failed:${failure.deliveryId}`, failure]));
  const factOf = new Map([...failed, ...others].map((fact) => [fact.key, fact]));
  // Silent: a timeline-only rule, none about it, or sent only elsewhere: the timeline says why.
  const why = new Map<string, string>();
  for (const { fact, rule } of judged.silent) why.set(fact.key, silentWhy(rule));
  const told: RuledFailure[] = [];
  const notices: Announcement[] = [];
  for (const notification of judged.notifications) {
    const rule = matcher.byId(notification.ruleId)!;
    const toTray = notification.routes.includes(TRAY_ROUTE);
    for (const key of notification.keys) {
      const failure = byKey.get(key);
      if (failure === undefined) continue;
      if (toTray) told.push({ ...failure, rule });
      else why.set(key, elsewhereWhy(rule));
    }
    if (toTray && notification.event !== 'failed' && !tray.quiet)
      notices.push(
        noticeOf(
          notification,
          notification.keys.map((key) => factOf.get(key)!),
        ),
      );
  }
  rememberRuled(
    store,
    failures.filter((failure) => why.has(`failed:${failure.deliveryId}`)),
    now,
    (failure) => why.get(`failed:${failure.deliveryId}`)!,
  );
  if (cycle.firstSync) {
    // What a digest rule would gather was failing already: the first sync's summary tells it.
    for (const { fact, ruleId } of judged.gathered) {
      const failure = byKey.get(fact.key);
      if (failure !== undefined) told.push({ ...failure, rule: matcher.byId(ruleId)! });
    }
    return { told, notices: [], sent: [] };
  }
  gather(ctx, judged.gathered, new Date(at));
  sendRuleNotifications(ctx, judged.notifications);
  return { told, notices, sent: judged.notifications };
}

/** The tray's notice of a notification about MISSING, late or recovered datasets. */
export function noticeOf(notification: RuleNotification, told: readonly RuleFact[]): Announcement {
  const common = {
    title: notification.title,
    body: notification.body,
    target: notification.target,
    at: notification.at,
    ...(notification.action === 'urgent' ? { urgent: true as const } : {}),
  };
  if (notification.event === 'recovered')
    return {
      kind: 'recovered',
      orgId: notification.orgId,
      datasets: told.map((fact) => ({
        datasetId: fact.datasetId ?? '',
        datasetName: fact.datasetName,
        from: fact.from ?? '',
        to: fact.to ?? '',
      })),
      ...common,
    };
  return {
    kind: 'event',
    orgId: notification.orgId,
    ruleId: notification.ruleId,
    ruleName: notification.ruleName,
    event: notification.event,
    datasetIds: notification.datasetIds,
    ...common,
  };
}
