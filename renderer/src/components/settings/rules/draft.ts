/**
 * Settings → Rules' editable copy of an org's rule set (docs/decisions.md "Settings → Rules"): rules and
 * routes in words, new ones with fresh ids, and the problems shared/ruleCheck.ts finds, found again by
 * the field they name so each message stands beside its field.
 */
import type { RuleProblem } from '../../../../../shared/ruleCheck';
import {
  RULE_ACTION_LABELS,
  RULE_EVENT_LABELS,
  type Route,
  type Rule,
  type RuleSet,
  TRAY_ROUTE,
} from '../../../../../shared/rules';
import { STAGE_LABELS } from '../../../../../shared/status';

/** The messages of the problems about `path` or a field inside it, as one line; null: none. */
export function problemAt(problems: readonly RuleProblem[], path: string): string | null {
  const messages = problems
    .filter(
      (problem) =>
        problem.path === path || problem.path.startsWith(`${path}.`) || problem.path.startsWith(`${path}[`),
    )
    .map((problem) => problem.message);
  return messages.length > 0 ? [...new Set(messages)].join('; ') : null;
}

/** An id from a name (`FX late` → `fx-late`), not among `taken`. */
export function freshId(name: string, taken: readonly string[], fallback: string): string {
  const base =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 32) || fallback;
  let id = base;
  for (let n = 2; taken.includes(id) || id === TRAY_ROUTE; n++) id = `${base}-${n}`;
  return id;
}

/** A new rule: new failures told in the tray, the user names and narrows it. */
export function newRule(set: RuleSet): Rule {
  const ids = set.rules.map((rule) => rule.id);
  return {
    id: freshId('new rule', ids, 'rule'),
    name: 'New rule',
    enabled: true,
    event: 'failed',
    match: {},
    action: 'notify',
    routes: [TRAY_ROUTE],
  };
}

export function newRoute(set: RuleSet, kind: Route['kind']): Route {
  const ids = set.routes.map((route) => route.id);
  return kind === 'webhook'
    ? {
        id: freshId('webhook', ids, 'webhook'),
        kind,
        name: 'Webhook',
        url: '',
        secretHeader: null,
        timeoutSeconds: 10,
      }
    : {
        id: freshId('hook', ids, 'hook'),
        kind,
        name: 'Command hook',
        command: '',
        args: [],
        shell: false,
        timeoutSeconds: 30,
      };
}

/** Moves item `from` of `list` by `by` places (the list is changed in place). */
export function move<T>(list: T[], from: number, by: -1 | 1): void {
  const to = from + by;
  if (to < 0 || to >= list.length) return;
  const [item] = list.splice(from, 1);
  list.splice(to, 0, item!);
}

const listed = (values: readonly string[]): string =>
  values.length === 1 ? `“${values[0]}”` : `${values.map((value) => `“${value}”`).join(', ')}`;

/** What a rule looks at besides its event, in words: "supplier “ACME” and data product “FX”". */
export function matchWords(rule: Rule): string {
  const parts: string[] = [];
  const { suppliers, dataProducts, datasets, causes } = rule.match;
  if (suppliers) parts.push(`supplier ${listed(suppliers)}`);
  if (dataProducts) parts.push(`data product ${listed(dataProducts)}`);
  if (datasets) parts.push(`dataset ${listed(datasets)}`);
  if (causes)
    parts.push(
      `cause ${causes
        .map((cause) =>
          [cause.stage ? STAGE_LABELS[cause.stage] : null, cause.shortCode ?? null]
            .filter((part) => part !== null)
            .join(' '),
        )
        .join(' or ')}`,
    );
  return parts.length > 0
    ? parts.join(' and ')
    : rule.event === 'contact-lost'
      ? 'any source'
      : 'any dataset';
}

export function eventWords(rule: Rule): string {
  return rule.event === 'late'
    ? `Delivered late by more than ${rule.lateByMinutes ?? '?'} min`
    : RULE_EVENT_LABELS[rule.event];
}

export function actionWords(rule: Rule): string {
  const label = RULE_ACTION_LABELS[rule.action].replace(/ \(.*\)$/, '');
  if (rule.action !== 'digest' || !rule.digest) return label;
  return 'everyMinutes' in rule.digest
    ? `${label}, every ${rule.digest.everyMinutes} min`
    : `${label}, at ${rule.digest.at.join(', ')}`;
}

/** Where a rule sends, by the routes' names. */
export function routeWords(rule: Rule, set: RuleSet): string {
  if (rule.routes.length === 0) return 'nowhere (timeline)';
  return rule.routes
    .map((id) => (id === TRAY_ROUTE ? 'Tray' : (set.routes.find((route) => route.id === id)?.name ?? id)))
    .join(', ');
}

/** A comma-separated list as values: trimmed, empty ones left out. */
export function valuesOf(text: string): string[] {
  return text
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
}
