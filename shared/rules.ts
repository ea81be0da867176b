/**
 * Notification rules (docs/decisions.md "Notification rules"): per org, an ordered list in which the
 * first enabled rule that matches an event decides what is done with it — told in the tray, told as
 * urgent, gathered into a digest, or only written on the timeline — and where it goes besides (routes:
 * a command hook, a webhook). An org without rules of its own has the default set, which is what the
 * app did before rules: new failures and lost contact told in the tray, recoveries when asked for.
 *
 * One TypeBox schema gives the types and the structural check (the rules file, Settings → Rules, the
 * RPC); shared/ruleCheck.ts adds what a schema cannot say (ids unique, routes named exist) with the
 * field that is wrong.
 */
import Type, { type Static } from 'typebox';
import { STAGES } from './status';

/** What happened, as a rule matches it. */
export const RULE_EVENTS = ['failed', 'missing', 'late', 'recovered', 'contact-lost'] as const;
export type RuleEvent = (typeof RULE_EVENTS)[number];

export const RULE_EVENT_LABELS: Record<RuleEvent, string> = {
  failed: 'Newly FAILED',
  missing: 'MISSING (deadline passed, nothing delivered)',
  late: 'Delivered late by more than…',
  recovered: 'Recovered',
  'contact-lost': 'Lost contact with a source',
};

/** What is done with a matched event. */
export const RULE_ACTIONS = ['notify', 'urgent', 'digest', 'timeline'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

export const RULE_ACTION_LABELS: Record<RuleAction, string> = {
  notify: 'Notify',
  urgent: 'Urgent (stays on screen, its own sound)',
  digest: 'Digest (one summary now and then)',
  timeline: 'Timeline only (silent)',
};

/** The tray (the desktop's notifications; `serve`'s log): a route every rule set has. */
export const TRAY_ROUTE = 'tray';

export const RULE_LIMITS = {
  rules: 200,
  routes: 20,
  /** Values one match field lists at most. */
  values: 100,
  valueLength: 200,
  nameLength: 80,
  lateByMinutes: [1, 1440],
  digestEveryMinutes: [5, 1440],
  digestTimes: 24,
  timeoutSeconds: [1, 300],
  commandLength: 4096,
  args: 50,
  urlLength: 2048,
  headerValueLength: 1024,
} as const;

/** A rule's or route's id: lower-case letters, digits and dashes, as it appears in files and URLs. */
export const RULE_ID_PATTERN = '^[a-z0-9][a-z0-9-]{0,39}$';
const Id = Type.String({ pattern: RULE_ID_PATTERN, description: 'a-z, 0-9 and -, at most 40' });
const Name = Type.String({ minLength: 1, maxLength: RULE_LIMITS.nameLength });
const Value = Type.String({ minLength: 1, maxLength: RULE_LIMITS.valueLength });
const Values = Type.Array(Value, { minItems: 1, maxItems: RULE_LIMITS.values });
export const CLOCK_PATTERN = '^([01][0-9]|2[0-3]):[0-5][0-9]$';
export const HEADER_NAME_PATTERN = "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$";
const Clock = Type.String({ pattern: CLOCK_PATTERN, description: 'HH:MM, local time' });
const Timeout = Type.Integer({
  minimum: RULE_LIMITS.timeoutSeconds[0],
  maximum: RULE_LIMITS.timeoutSeconds[1],
});

/** A failed stage, its shortCode, or both: what a failure's cause is matched on. */
export const CauseMatch = Type.Object(
  {
    stage: Type.Optional(Type.Enum(STAGES)),
    shortCode: Type.Optional(Value),
  },
  { additionalProperties: false },
);
export type CauseMatch = Static<typeof CauseMatch>;

/**
 * What a rule looks at besides the event. Every field given must match (a list: any of its values);
 * a field left out matches everything. Suppliers and data products by id or name, datasets by id or
 * by a name pattern (`*` any run of characters, `?` one), all without regard to case.
 */
export const RuleMatch = Type.Object(
  {
    suppliers: Type.Optional(Values),
    dataProducts: Type.Optional(Values),
    datasets: Type.Optional(Values),
    causes: Type.Optional(Type.Array(CauseMatch, { minItems: 1, maxItems: RULE_LIMITS.values })),
  },
  { additionalProperties: false },
);
export type RuleMatch = Static<typeof RuleMatch>;

/** When a digest is sent: every N minutes, or at set times of day (local time). */
export const DigestSchedule = Type.Union([
  Type.Object(
    {
      everyMinutes: Type.Integer({
        minimum: RULE_LIMITS.digestEveryMinutes[0],
        maximum: RULE_LIMITS.digestEveryMinutes[1],
      }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { at: Type.Array(Clock, { minItems: 1, maxItems: RULE_LIMITS.digestTimes }) },
    { additionalProperties: false },
  ),
]);
export type DigestSchedule = Static<typeof DigestSchedule>;

export const Rule = Type.Object(
  {
    id: Id,
    name: Name,
    enabled: Type.Boolean(),
    event: Type.Enum(RULE_EVENTS),
    /** For `late`: told only when delivered more than this many minutes after the deadline. */
    lateByMinutes: Type.Optional(
      Type.Integer({ minimum: RULE_LIMITS.lateByMinutes[0], maximum: RULE_LIMITS.lateByMinutes[1] }),
    ),
    match: RuleMatch,
    action: Type.Enum(RULE_ACTIONS),
    /** For `digest`: when its summary goes out. */
    digest: Type.Optional(DigestSchedule),
    /** Where it goes: `tray` and the ids of the set's routes. None: the timeline only. */
    routes: Type.Array(Id, { maxItems: RULE_LIMITS.routes + 1 }),
  },
  { additionalProperties: false },
);
export type Rule = Static<typeof Rule>;

/**
 * A command run once per notification with its JSON on stdin (docs/decisions.md "Notification rules"): the
 * program and its arguments, without a shell unless `shell` (then `command` is a shell line).
 */
export const HookRoute = Type.Object(
  {
    id: Id,
    kind: Type.Literal('hook'),
    name: Name,
    command: Type.String({ minLength: 1, maxLength: RULE_LIMITS.commandLength }),
    args: Type.Array(Type.String({ maxLength: RULE_LIMITS.commandLength }), { maxItems: RULE_LIMITS.args }),
    shell: Type.Boolean(),
    timeoutSeconds: Timeout,
  },
  { additionalProperties: false },
);
export type HookRoute = Static<typeof HookRoute>;

/** A header sent with every webhook POST, so the receiver knows it is us. */
export const SecretHeader = Type.Object(
  {
    name: Type.String({ pattern: HEADER_NAME_PATTERN, description: 'an HTTP header name' }),
    value: Type.String({ minLength: 1, maxLength: RULE_LIMITS.headerValueLength }),
  },
  { additionalProperties: false },
);

/** An HTTP POST of the notification as JSON, with a Slack-compatible `text`. */
export const WebhookRoute = Type.Object(
  {
    id: Id,
    kind: Type.Literal('webhook'),
    name: Name,
    url: Type.String({ minLength: 1, maxLength: RULE_LIMITS.urlLength }),
    secretHeader: Type.Union([SecretHeader, Type.Null()]),
    timeoutSeconds: Timeout,
  },
  { additionalProperties: false },
);
export type WebhookRoute = Static<typeof WebhookRoute>;

export const Route = Type.Union([HookRoute, WebhookRoute]);
export type Route = Static<typeof Route>;

/** An org's rules and the routes they send to. */
export const RuleSet = Type.Object(
  {
    rules: Type.Array(Rule, { maxItems: RULE_LIMITS.rules }),
    routes: Type.Array(Route, { maxItems: RULE_LIMITS.routes }),
  },
  { additionalProperties: false },
);
export type RuleSet = Static<typeof RuleSet>;

export const RULES_FILE_FORMAT = 'dataset-health-rules';
export const RULES_FILE_VERSION = 1;

/** `rules export` writes it and `rules import` reads it: one org's rule set, as JSON. */
export const RulesFile = Type.Object(
  {
    format: Type.Literal(RULES_FILE_FORMAT),
    version: Type.Literal(RULES_FILE_VERSION),
    orgId: Type.String({ minLength: 1, maxLength: 256 }),
    rules: RuleSet.properties.rules,
    routes: RuleSet.properties.routes,
  },
  { additionalProperties: false },
);
export type RulesFile = Static<typeof RulesFile>;

/** Recovery notices follow this setting in the default set (off unless asked for). */
export interface DefaultRuleOptions {
  recoveryNotices: boolean;
}

/**
 * The rules an org has until it saves its own: what the app did before rules. New failures and lost
 * contact are told in the tray; recoveries too when Settings → Notifications asks for them. MISSING and
 * late deliveries match no rule: they are on the tray's colour and in the window, never told.
 */
export function defaultRuleSet({ recoveryNotices }: DefaultRuleOptions): RuleSet {
  return {
    rules: [
      {
        id: 'failed',
        name: 'New failures',
        enabled: true,
        event: 'failed',
        match: {},
        action: 'notify',
        routes: [TRAY_ROUTE],
      },
      {
        id: 'contact-lost',
        name: 'Lost contact',
        enabled: true,
        event: 'contact-lost',
        match: {},
        action: 'notify',
        routes: [TRAY_ROUTE],
      },
      {
        id: 'recovered',
        name: 'Recoveries',
        enabled: recoveryNotices,
        event: 'recovered',
        match: {},
        action: 'notify',
        routes: [TRAY_ROUTE],
      },
    ],
    routes: [],
  };
}
