/**
 * The org's notification rules in the alerts (docs/decisions.md "Notification rules"): read from the
 * store at each evaluation and compiled once per saved set; and the words a timeline says when they
 * keep a failure silent.
 */
import { type Rule, type RuleSet, defaultRuleSet } from '../../shared/rules';
import type { Store } from '../store/database';
import { ruleSetInForce } from '../store/tables/ruleSets';
import { RuleMatcher } from '../rules/match';
import type { AlertsContext } from './context';

/** Compiled rule sets, per store and org, while their text is the same. */
const compiled = new WeakMap<Store, Map<string, { text: string; matcher: RuleMatcher }>>();

/** The org's rules: its own set, else the default set (recoveries as Settings → Notifications says). */
export function rulesOf(ctx: AlertsContext, orgId: string): RuleMatcher {
  const fallback: RuleSet = defaultRuleSet({ recoveryNotices: ctx.settings.notifications.recoveryNotices });
  // A stored set the check refuses was changed outside the app: the default set tells of every
  // failure, where throwing would stop every alert of the evaluation.
  const set = ruleSetInForce(ctx.store, orgId, fallback);
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

/** Why the tray keeps a failure silent that a rule sends elsewhere, as its timeline says. */
export const elsewhereWhy = (rule: Rule): string =>
  `Sent by the rule “${rule.name}” to its routes, not the tray`;
