/**
 * Settings → Rules as the window and the engine share it (docs/decisions.md "Notification rules"): an
 * org's rule set with the defaults beside it, what a save answers, a replay of the rules over stored
 * history, and the deliveries given up (dead letters).
 *
 * A webhook's secret header value never goes to the window (docs/decisions.md "Settings → Rules"): the
 * set it receives holds KEPT_SECRET in its place, and a set saved with KEPT_SECRET keeps the value stored
 * for the route of that id. Typing a new value replaces it.
 */
import type { RuleProblem } from './ruleCheck';
import type { RuleAction, RuleEvent, RuleSet } from './rules';
import type { WindowTarget } from './routes';

/** Days a replay may cover: the rules' record of what they sent is kept this long. */
export const RULE_LOG_DAYS = 30;
/** The days a replay may be asked for (CLI, API, window), and the default. */
export const REPLAY_DAYS = { min: 1, max: RULE_LOG_DAYS, default: 7 } as const;
export const DEFAULT_REPLAY_DAYS = REPLAY_DAYS.default;

/** Stands for a stored secret header value in the window's copy of a set: "set, not shown". */
export const KEPT_SECRET = '\u2022\u2022\u2022\u2022\u2022\u2022\u2022\u2022';

export interface RulesView {
  orgId: string;
  /** The rules in force (secret values as KEPT_SECRET). */
  set: RuleSet;
  /** False: the org saved no rules of its own, and `set` is the default set. */
  own: boolean;
  savedAt: string | null;
  /** The default set (what Reset to defaults gives). */
  defaults: RuleSet;
  /** The stored rules were changed outside the app and are refused: the alerts run the defaults. */
  problem: string | null;
}

export type RulesSaveResult = { saved: true; view: RulesView } | { saved: false; problems: RuleProblem[] };

/** What a rule sent: to the tray and its routes, once. */
export interface RuleNotification {
  /** `<org>:<rule>:<event or digest>:<hash of its events' keys>`: a route delivers it at most once. */
  id: string;
  orgId: string;
  ruleId: string;
  ruleName: string;
  action: Exclude<RuleAction, 'timeline'>;
  /** The event its facts are; a digest's are any. */
  event: RuleEvent | 'digest';
  at: string;
  title: string;
  body: string;
  target: WindowTarget;
  routes: string[];
  /** The facts it tells of, by key. */
  keys: string[];
  /** The datasets they are about, in order (none for a source's lost contact). */
  datasetIds: string[];
}

export interface ReplayRule {
  ruleId: string;
  name: string;
  action: string;
  /** What the replayed rule would have sent. */
  count: number;
  /** What the rule of that id in force sent, as recorded. */
  sent: number;
}

export interface ReplayResult {
  orgId: string;
  days: number;
  /** The window asked for: [from, to). */
  from: string;
  to: string;
  /** Where the replay starts when the mirror's history begins inside the window (null: it covers it). */
  historyFrom: string | null;
  /** What the person should know about the window, in words (null: nothing). */
  note: string | null;
  notifications: RuleNotification[];
  /** What the rules in force sent in the window, as recorded. */
  sent: RuleNotification[];
  /** Per day of the user's zone, oldest first. */
  byDay: { day: string; count: number; sent: number; byRule: Record<string, number> }[];
  byRule: ReplayRule[];
}

/** A delivery to a hook or webhook given up, kept for a person to send again. */
export interface DeadLetter {
  id: number;
  orgId: string;
  routeId: string;
  notificationId: string;
  /** The notification's title, as its payload has it. */
  title: string;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  /** When it was given up. */
  diedAt: string;
}

/** The set as the window may see it: every secret header value replaced by KEPT_SECRET. */
export function withheldSecrets(set: RuleSet): RuleSet {
  return {
    rules: set.rules,
    routes: set.routes.map((route) =>
      route.kind === 'webhook' && route.secretHeader
        ? { ...route, secretHeader: { name: route.secretHeader.name, value: KEPT_SECRET } }
        : route,
    ),
  };
}

/**
 * `candidate` with each KEPT_SECRET replaced by the value `stored` holds for the webhook of that id; a
 * KEPT_SECRET with none to keep (a new or renamed route) is a problem of its field.
 */
export function keptSecrets(
  candidate: RuleSet,
  stored: RuleSet,
): { ok: true; set: RuleSet } | { ok: false; problems: RuleProblem[] } {
  const problems: RuleProblem[] = [];
  const routes = candidate.routes.map((route, index) => {
    if (route.kind !== 'webhook' || route.secretHeader?.value !== KEPT_SECRET) return route;
    const before = stored.routes.find((each) => each.id === route.id);
    const value = before?.kind === 'webhook' ? before.secretHeader?.value : undefined;
    if (value === undefined) {
      problems.push({
        path: `routes[${index}].secretHeader.value`,
        message: 'no saved secret of this webhook to keep: type the value',
      });
      return route;
    }
    return { ...route, secretHeader: { name: route.secretHeader.name, value } };
  });
  return problems.length > 0
    ? { ok: false, problems }
    : { ok: true, set: { rules: candidate.rules, routes } };
}
