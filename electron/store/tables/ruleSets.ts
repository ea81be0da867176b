/**
 * An org's notification rules (docs/decisions.md "Notification rules"): its own set when it saved one,
 * else the default set the caller gives (it follows a setting). Every write is checked whole first
 * (shared/ruleCheck.ts): a refused set changes nothing.
 */
import { type RuleProblem, checkRuleSet, describeRuleProblems } from '../../../shared/ruleCheck';
import type { RuleSet } from '../../../shared/rules';
import type { Store } from '../database';
import { requireOrg } from './orgs';

export class RuleSetError extends Error {
  constructor(readonly problems: readonly RuleProblem[]) {
    super(describeRuleProblems(problems));
  }
}

export interface StoredRuleSet {
  set: RuleSet;
  /** False: the org has saved no rules, and this is the default set. */
  own: boolean;
  /** When the org's own set was saved (null for the default set). */
  savedAt: string | null;
}

/** The org's rules: its own set, else `fallback` (the default set). */
export function readRuleSet(store: Store, orgId: string, fallback: RuleSet): StoredRuleSet {
  const row = store.get('SELECT json, saved_at FROM rule_sets WHERE org_id = ?', [orgId]);
  if (!row) return { set: fallback, own: false, savedAt: null };
  let value: unknown;
  try {
    value = JSON.parse(String(row.json)) as unknown;
  } catch {
    throw new RuleSetError([{ path: '', message: 'the stored rules are not JSON' }]);
  }
  const check = checkRuleSet(value);
  // Written only after the same check: a row it refuses was changed outside the app.
  if (!check.ok) throw new RuleSetError(check.problems);
  return { set: check.set, own: true, savedAt: String(row.saved_at) };
}

/**
 * The rules in force for the org: its own set, else `fallback` — also when the stored set was changed
 * outside the app and the check refuses it (the alerts then run the default set rather than none, and
 * a replay of the rules in force replays that).
 */
export function ruleSetInForce(store: Store, orgId: string, fallback: RuleSet): RuleSet {
  try {
    return readRuleSet(store, orgId, fallback).set;
  } catch (error) {
    if (error instanceof RuleSetError) return fallback;
    throw error;
  }
}

/** The orgs that saved rules of their own. */
export function orgsWithOwnRules(store: Store): string[] {
  return store.all('SELECT org_id FROM rule_sets ORDER BY org_id').map((row) => String(row.org_id));
}

/**
 * Saves the org's own rule set, replacing any before it. Throws RuleSetError (nothing written) when the
 * set is refused, UnknownOrgError for an org the mirror does not have.
 */
export function saveRuleSet(store: Store, orgId: string, value: unknown, now: Date): RuleSet {
  const check = checkRuleSet(value);
  if (!check.ok) throw new RuleSetError(check.problems);
  requireOrg(store, orgId);
  store.transaction(
    () =>
      store.run(
        `INSERT INTO rule_sets (org_id, json, saved_at) VALUES (?, ?, ?)
         ON CONFLICT (org_id) DO UPDATE SET json = excluded.json, saved_at = excluded.saved_at`,
        [orgId, JSON.stringify(check.set), now.toISOString()],
      ),
    { dataChange: false },
  );
  return check.set;
}

/** Back to the default set; false when the org had none of its own. */
export function resetRuleSet(store: Store, orgId: string): boolean {
  const had = store.get('SELECT 1 AS one FROM rule_sets WHERE org_id = ?', [orgId]) !== undefined;
  if (had)
    store.transaction(() => store.run('DELETE FROM rule_sets WHERE org_id = ?', [orgId]), {
      dataChange: false,
    });
  return had;
}
