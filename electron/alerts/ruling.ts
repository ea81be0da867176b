/**
 * The org's notification rules in the alerts (docs/decisions.md "Notification rules"): for each event
 * the alerts are about to tell of, the rule that decides it — told (notify or urgent), or kept silent
 * (a timeline-only rule, or no rule about it; remembered so, with a timeline entry saying why). The
 * rules are read from the store at each evaluation and compiled once per saved set.
 */
import { type Rule, type RuleEvent, type RuleSet, defaultRuleSet } from '../../shared/rules';
import { datasetFacts } from '../query/dataset';
import type { Store } from '../store/database';
import { RuleSetError, readRuleSet } from '../store/tables/ruleSets';
import { RuleMatcher, type RuleSubject } from '../rules/match';
import type { AlertsContext } from './context';
import type { CausedFailure } from './types';

/** A failure the rules tell of, with the rule that does. */
export interface RuledFailure extends CausedFailure {
  rule: Rule;
}

/** Compiled rule sets, per store and org, while their text is the same. */
const compiled = new WeakMap<Store, Map<string, { text: string; matcher: RuleMatcher }>>();

/** The org's rules: its own set, else the default set (recoveries as Settings → Notifications says). */
export function rulesOf(ctx: AlertsContext, orgId: string): RuleMatcher {
  const fallback: RuleSet = defaultRuleSet({ recoveryNotices: ctx.settings.notifications.recoveryNotices });
  let set = fallback;
  try {
    set = readRuleSet(ctx.store, orgId, fallback).set;
  } catch (error) {
    // A stored set the check refuses was changed outside the app: the default set tells of every
    // failure, where throwing would stop every alert of the evaluation.
    if (!(error instanceof RuleSetError)) throw error;
  }
  const text = JSON.stringify(set.rules);
  let ofStore = compiled.get(ctx.store);
  if (!ofStore) compiled.set(ctx.store, (ofStore = new Map()));
  const cached = ofStore.get(orgId);
  if (cached?.text === text) return cached.matcher;
  const matcher = new RuleMatcher(set.rules);
  ofStore.set(orgId, { text, matcher });
  return matcher;
}

/** Why the rules keep a failure silent, as its timeline says. */
export const silentWhy = (rule: Rule | null): string =>
  rule === null
    ? 'No notification rule tells of this'
    : `Kept silent by the rule “${rule.name}” (timeline only)`;

/** A subject about no dataset (a source's lost contact). */
export const sourceSubject = (event: RuleEvent): RuleSubject => ({
  event,
  lateMinutes: null,
  datasetId: null,
  datasetName: null,
  supplierId: null,
  supplierName: null,
  dataProductId: null,
  dataProductName: null,
  stage: null,
  shortCode: null,
});

/** Whether the rules tell of this event, and by which rule (null: silent). */
export function tellingRule(matcher: RuleMatcher, subject: RuleSubject): Rule | null {
  const rule = matcher.decide(subject);
  return rule !== null && rule.action !== 'timeline' ? rule : null;
}

/**
 * The org's new failures split by its rules: those a rule tells of (with it), and those kept silent
 * (with the rule that did, or null when none is about them).
 */
export function splitByRules(
  ctx: AlertsContext,
  orgId: string,
  failures: readonly CausedFailure[],
): { told: RuledFailure[]; silent: { failure: CausedFailure; rule: Rule | null }[] } {
  const told: RuledFailure[] = [];
  const silent: { failure: CausedFailure; rule: Rule | null }[] = [];
  if (failures.length === 0) return { told, silent };
  const matcher = rulesOf(ctx, orgId);
  const facts = datasetFacts(
    ctx.store,
    orgId,
    failures.map((failure) => failure.datasetId),
  );
  for (const failure of failures) {
    const of = facts.get(failure.datasetId);
    const rule = matcher.decide({
      event: 'failed',
      lateMinutes: null,
      datasetId: failure.datasetId,
      datasetName: failure.datasetName,
      supplierId: failure.supplierId ?? of?.supplierId ?? null,
      supplierName: failure.supplierName ?? of?.supplierName ?? null,
      dataProductId: of?.dataProductId ?? null,
      dataProductName: of?.dataProductName ?? null,
      stage: failure.reason?.stage ?? null,
      shortCode: failure.reason?.shortCode ?? null,
    });
    if (rule === null || rule.action === 'timeline') silent.push({ failure, rule });
    else told.push({ ...failure, rule });
  }
  return { told, silent };
}
