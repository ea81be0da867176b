/**
 * Digest rules (docs/decisions.md "Notification rules"): failures a digest rule decides are gathered
 * (store/tables/digests.ts) and told as one summary per rule when its schedule says — every N minutes
 * from the first failure gathered, or at the first set time of day after it (the user's zone). Paused
 * or in quiet hours, a digest waits and goes out at the first evaluation after. A digest whose rule is
 * gone, or no longer a digest, goes out at once: what it gathered was never told. Runs inside
 * `store.whenIdle`.
 */
import type { DigestSchedule, Rule } from '../../shared/rules';
import { remember } from '../store/tables/announcements';
import { type DigestItem, digestItems, dropDigestItems, gatherFailures } from '../store/tables/digests';
import { acknowledgedOf } from './acknowledged';
import { type AlertsContext, paused, quiet, snoozedIds } from './context';
import { withCauses } from './causes';
import { localMinutes } from './quietHours';
import { rulesOf } from './ruling';
import { causeCounts, topCausesWords } from './text';
import type { Announcement, CausedFailure } from './types';

const MINUTE = 60_000;
const DAY_MINUTES = 24 * 60;

const clockMinutes = (clock: string): number => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/** Whether a digest whose first item came at `first` is due at `now`. */
export function digestDue(schedule: DigestSchedule, first: Date, now: Date, timeZone: string): boolean {
  const elapsed = Math.floor((now.getTime() - first.getTime()) / MINUTE);
  if ('everyMinutes' in schedule) return elapsed >= schedule.everyMinutes;
  if (elapsed >= DAY_MINUTES) return true;
  // A set time passed since the first item: its minutes of the day lie in (first, now].
  const from = localMinutes(first, timeZone);
  return schedule.at.some((clock) => {
    const ahead = (clockMinutes(clock) - from + DAY_MINUTES) % DAY_MINUTES;
    return ahead > 0 && ahead <= elapsed;
  });
}

/** Gathers the failures a digest rule decided, under that rule. */
export function gather(ctx: AlertsContext, failures: readonly (CausedFailure & { rule: Rule })[]): void {
  const byRule = new Map<string, CausedFailure[]>();
  for (const failure of failures)
    byRule.set(failure.rule.id, [...(byRule.get(failure.rule.id) ?? []), failure]);
  for (const [ruleId, ofRule] of byRule) gatherFailures(ctx.store, ruleId, ofRule, ctx.now);
}

/** The digests due now, one announcement per org and rule, each remembered as told. */
export function releaseDigests(ctx: AlertsContext): { made: Announcement[]; remembered: boolean } {
  const items = digestItems(ctx.store);
  if (items.length === 0 || paused(ctx) || quiet(ctx)) return { made: [], remembered: false };
  const made: Announcement[] = [];
  let remembered = false;
  const groups = new Map<string, DigestItem[]>();
  for (const item of items) {
    const key = JSON.stringify([item.orgId, item.ruleId]);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  for (const group of groups.values()) {
    const [first] = group as [DigestItem, ...DigestItem[]];
    const rule = rulesOf(ctx, first.orgId).byId(first.ruleId);
    const due =
      rule === null ||
      !rule.enabled ||
      rule.action !== 'digest' ||
      rule.digest === undefined ||
      digestDue(rule.digest, new Date(first.addedAt), ctx.now, ctx.timeZone);
    if (!due) continue;
    remembered = true;
    // Acknowledged or snoozed since it was gathered: someone is on it, or asked for silence.
    const { acknowledged, rest } = acknowledgedOf(ctx.store, first.orgId, group);
    remember(ctx.store, acknowledged, 'acknowledged', ctx.now);
    const snoozed = snoozedIds(ctx, first.orgId);
    remember(
      ctx.store,
      rest.filter((item) => snoozed.has(item.datasetId)),
      'snoozed',
      ctx.now,
    );
    const told = rest.filter((item) => !snoozed.has(item.datasetId));
    dropDigestItems(ctx.store, group);
    if (told.length === 0) continue;
    const announcement = digest(ctx, first.orgId, first.ruleId, rule?.name ?? first.ruleId, told);
    remember(ctx.store, told, 'summarized', ctx.now, announcement.title);
    made.push(announcement);
  }
  return { made, remembered };
}

function digest(
  ctx: AlertsContext,
  orgId: string,
  ruleId: string,
  ruleName: string,
  items: DigestItem[],
): Announcement {
  const failures = withCauses(ctx.store, orgId, items);
  const causes = causeCounts(failures);
  const count = items.length;
  return {
    kind: 'digest',
    orgId,
    ruleId,
    ruleName,
    datasets: items.map(({ orgId: org, datasetId, datasetName, deliveryId }) => ({
      orgId: org,
      datasetId,
      datasetName,
      deliveryId,
    })),
    causes,
    title: `Digest “${ruleName}”: ${count} new failure${count === 1 ? '' : 's'}`,
    body: `${orgId}: ${topCausesWords(causes)}.`,
    target: { view: 'triage', orgId },
    at: ctx.now.toISOString(),
  };
}
