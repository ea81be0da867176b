/**
 * Digest rules, live (docs/decisions.md "Rule notifications: one evaluator"): what a digest rule
 * decides is gathered in the store (store/tables/digests.ts) and sent as one notification per rule when
 * the evaluator (ruleRun.ts `releaseDue`) finds it due — every N minutes from the first event gathered,
 * or at the first set time of day after it (the user's zone). Looked at on the alerts' ticks, which fall
 * on a 30-second grid, so the replay sends each digest at the same moment. Paused or in quiet hours the
 * tray shows none, but the digest is sent (and recorded) all the same: quiet hours are this desktop's,
 * the routes are the team's. Runs inside `store.whenIdle`.
 */
import { type Rule, TRAY_ROUTE } from '../../shared/rules';
import type { Store } from '../store/database';
import { remember } from '../store/tables/announcements';
import {
  type DigestItem,
  digestFirsts,
  digestItems,
  dropDigestItems,
  gatherItems,
} from '../store/tables/digests';
import { type AlertsContext, paused, quiet, snoozedIds } from './context';
import { sendRuleNotifications } from './ruleSend';
import { acknowledgedNow } from './acknowledged';
import { type RuleFact, blankFact } from './ruleFacts';
import { type Gathered, type RuleNotification, digestDueAt, releaseDue } from './ruleRun';
import { TICK_MS } from './tick';
import { rulesOf } from './ruling';
import type { Announcement, FailedDataset } from './types';

export { digestDue } from './ruleRun';

/** Gathers what digest rules decided at `at` (a failure is remembered as 'digested'). */
export function gather(ctx: AlertsContext, gathered: readonly Gathered[], at: Date): void {
  gatherItems(
    ctx.store,
    gathered.map(({ orgId, ruleId, fact }) => ({
      orgId,
      ruleId,
      eventKey: fact.key,
      datasetId: fact.datasetId,
      deliveryId: fact.deliveryId,
      fact,
    })),
    at,
  );
}

/** A stored item as the evaluator's: one gathered before facts were kept is a failure. */
function gatheredOf(item: DigestItem): Gathered {
  const fact = (item.fact as RuleFact | null) ?? {
    ...blankFact(item.eventKey, 'failed', item.addedAt, item.orgId),
    datasetId: item.datasetId,
    datasetName: item.datasetName,
    deliveryId: item.deliveryId,
  };
  return { orgId: item.orgId, ruleId: item.ruleId, fact, addedAt: item.addedAt };
}

const failureOf = (fact: RuleFact): FailedDataset | null =>
  fact.event === 'failed' && fact.datasetId !== null && fact.deliveryId !== null
    ? {
        orgId: fact.orgId,
        datasetId: fact.datasetId,
        datasetName: fact.datasetName,
        deliveryId: fact.deliveryId,
      }
    : null;

/**
 * The digests due now, each recorded as sent; their failures are remembered as told, or as
 * 'acknowledged' when someone took them on meanwhile. A snoozed dataset is left out of its digest.
 */
export function releaseDigests(ctx: AlertsContext): { sent: RuleNotification[]; remembered: boolean } {
  const items = digestItems(ctx.store);
  if (items.length === 0) return { sent: [], remembered: false };
  const snoozed = new Map<string, Set<string>>();
  const isSnoozed = (fact: RuleFact): boolean => {
    if (fact.datasetId === null) return false;
    if (!snoozed.has(fact.orgId)) snoozed.set(fact.orgId, snoozedIds(ctx, fact.orgId));
    return snoozed.get(fact.orgId)!.has(fact.datasetId);
  };
  const acknowledged = acknowledgedNow(ctx.store);
  const { notifications, done } = releaseDue(
    (orgId) => rulesOf(ctx, orgId),
    items.map(gatheredOf),
    ctx.now,
    ctx.timeZone,
    (fact) => acknowledged(fact) || isSnoozed(fact),
  );
  if (done.length === 0) return { sent: [], remembered: false };
  const toldKeys = new Set(notifications.flatMap((notification) => notification.keys));
  const doneByKey = new Map(done.map((item) => [item.fact.key, item.fact]));
  // In quiet hours the tray shows no digest: its failures wait for the summary at their end, as the
  // failures told alone do (the routes have the digest now).
  const held = quiet(ctx) && !paused(ctx);
  for (const notification of notifications) {
    const failures = notification.keys.flatMap((key) => {
      const fact = doneByKey.get(key);
      return fact === undefined ? [] : (failureOf(fact) ?? []);
    });
    if (held && notification.routes.includes(TRAY_ROUTE)) remember(ctx.store, failures, 'held', ctx.now);
    else remember(ctx.store, failures, 'summarized', ctx.now, notification.title);
  }
  const left = done.filter(({ fact }) => !toldKeys.has(fact.key));
  remember(
    ctx.store,
    left.flatMap(({ fact }) => (acknowledged(fact) ? (failureOf(fact) ?? []) : [])),
    'acknowledged',
    ctx.now,
  );
  remember(
    ctx.store,
    left.flatMap(({ fact }) => (acknowledged(fact) ? [] : (failureOf(fact) ?? []))),
    'snoozed',
    ctx.now,
  );
  dropDigestItems(
    ctx.store,
    done.map(({ orgId, fact }) => ({ orgId, eventKey: fact.key })),
  );
  sendRuleNotifications(ctx, notifications);
  return { sent: notifications, remembered: true };
}

/** The tray's notices of digests sent now (paused or in quiet hours: none; the routes still get them). */
export function trayDigests(ctx: AlertsContext, sent: readonly RuleNotification[]): Announcement[] {
  if (paused(ctx) || quiet(ctx)) return [];
  return sent
    .filter((notification) => notification.routes.includes(TRAY_ROUTE))
    .map((notification) => ({
      kind: 'digest',
      orgId: notification.orgId,
      ruleId: notification.ruleId,
      ruleName: notification.ruleName,
      datasetIds: notification.datasetIds,
      title: notification.title,
      body: notification.body,
      target: notification.target,
      at: notification.at,
    }));
}

/**
 * The first tick of the grid after `after` (epoch ms) at which a digest waiting in the store falls due
 * (Infinity: none waits) — the tick the live alerts' 30-second ticks would send it on. A clock driven
 * by hand (the replay-equals-live test, the bench) ticks there; a digest whose rule is gone, disabled
 * or no longer a digest is due at once, as releaseDue sends it.
 */
export function nextDigestTick(
  store: Store,
  ruleOf: (orgId: string, ruleId: string) => Rule | undefined,
  after: number,
  timeZone: string,
): number {
  let next = Infinity;
  for (const { orgId, ruleId, first } of digestFirsts(store)) {
    const rule = ruleOf(orgId, ruleId);
    const schedule = rule?.enabled && rule.action === 'digest' ? rule.digest : undefined;
    const due = schedule === undefined ? first.getTime() : digestDueAt(schedule, first, timeZone);
    next = Math.min(
      next,
      Math.max(Math.floor(after / TICK_MS) * TICK_MS + TICK_MS, Math.ceil(due / TICK_MS) * TICK_MS),
    );
  }
  return next;
}
