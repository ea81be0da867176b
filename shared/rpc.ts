/**
 * The one contract between the renderer and the engine (docs/architecture.md#processes): every call with its request
 * schema and response type, and every event. Both transports (IPC in the app, HTTP + server-sent events
 * for `serve --ui`) are generic over it, so a call is one entry here and one handler in the engine
 * (`RpcHandlers` makes a missing handler a compile error). Requests are TypeBox schemas because they
 * cross a trust boundary: the engine checks every one before its handler runs. What the calls answer
 * lives beside it, by subject: the table's rows in rows.ts, the other views' shapes in views.ts.
 */
import Type, { type Static, type TSchema } from 'typebox';
import type { AcknowledgementView, Incident } from './causes';
import { MAX_CAUSE_ID_LENGTH } from './causes';
import type { DatabaseStatus } from './database';
import type { TimelineEntry } from './timeline';
import type { HandoffReport } from './handoff';
import type { TeamStatus } from './teamStatus';
import type { DatasetRecord } from './schemas';
import { Settings } from './settings';
import type { CycleEvent, SourceState } from './sync';
import type { ReliabilityStats, StatsDays, StatsGroupBy } from './reliability';
import type { RowsPage, StatusCounts } from './rows';
import type {
  ApiKeyView,
  DatasetDeadlines,
  DatasetTriage,
  DeliveryTasksView,
  OrgView,
  SettingsView,
  SnoozeKind,
  SnoozeView,
  SourceView,
} from './views';
import { MAX_UPCOMING_HOURS, type OverdueSummary, type UpcomingDeadlines } from './upcoming';
import {
  type DeadLetter,
  RULE_LOG_DAYS,
  type ReplayResult,
  type RulesSaveResult,
  type RulesView,
} from './rulesView';

const Id = Type.String({ minLength: 1, maxLength: 512 });
const Empty = Type.Union([Type.Null(), Type.Object({}, { additionalProperties: false })]);

/** Which datasets of an org: filter texts as the v2 API takes them, free text, and a v2 sort text. */
export const DatasetQuery = Type.Object(
  {
    orgId: Id,
    filters: Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 50 }),
    /** Matched, case-insensitively, against name, dataset id, product, supplier id and name. */
    search: Type.String({ maxLength: 200 }),
    /** e.g. `latestDeliveryStatus.asc` (FAILED first) or `latestDeliveryTimestamp.desc`; "" = by name. */
    sort: Type.String({ maxLength: 200 }),
    /** Only the datasets of this cause id (`STAGE:SHORTCODE`, `missing:SUPPLIER`, `unknown`); null = any. */
    cause: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
    /** Only FAILED and MISSING datasets that no acknowledgement holds for (default false). */
    unacknowledged: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type DatasetQuery = Static<typeof DatasetQuery>;

/** A tuple of literals (a mapped array would type as never[]). */
export const SnoozeKindSchema = Type.Union([
  Type.Literal('1h'),
  Type.Literal('4h'),
  Type.Literal('next-delivery'),
  Type.Literal('healthy'),
]);
const _snoozeKindsMatch: Static<typeof SnoozeKindSchema> extends SnoozeKind ? true : false = true;
void _snoozeKindsMatch;

const SourceInput = Type.Object(
  {
    /** The id of the source to change; a new source takes a fresh id from its name. */
    id: Type.Union([Id, Type.Null()]),
    orgId: Id,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    baseUrl: Type.String({ minLength: 1, maxLength: 2048 }),
    enabled: Type.Boolean(),
    /** Write-only: a new key, or null to keep the current one. */
    apiKey: Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Null()]),
  },
  { additionalProperties: false },
);

/** Tuples of literals, checked against shared/reliability.ts's lists. */
const StatsGroupBySchema = Type.Union([
  Type.Literal('dataset'),
  Type.Literal('supplier'),
  Type.Literal('dataProduct'),
]);
const StatsDaysSchema = Type.Union([Type.Literal(7), Type.Literal(30), Type.Literal(90)]);
const _statsMatch: [Static<typeof StatsGroupBySchema>, Static<typeof StatsDaysSchema>] extends [
  StatsGroupBy,
  StatsDays,
]
  ? true
  : false = true;
void _statsMatch;

function call<Request extends TSchema>(request: Request): { request: Request } {
  return { request };
}

/** Every call the renderer may make, by name, with its request schema. */
export const RPC_CALLS = {
  'database.status': call(Empty),
  'orgs.list': call(Empty),
  'datasets.rows': call(
    Type.Object(
      {
        ...DatasetQuery.properties,
        pageToken: Type.Union([Type.String({ maxLength: 4096 }), Type.Null()]),
        pageSize: Type.Integer({ minimum: 1, maximum: 5000 }),
      },
      { additionalProperties: false },
    ),
  ),
  'datasets.counts': call(DatasetQuery),
  'dataset.get': call(Type.Object({ orgId: Id, datasetId: Id }, { additionalProperties: false })),
  'delivery.tasks': call(
    Type.Object(
      { orgId: Id, deliveryId: Id, includeRunDetails: Type.Boolean() },
      { additionalProperties: false },
    ),
  ),
  'sync.states': call(Empty),
  'sync.now': call(Type.Object({ sourceId: Type.Union([Id, Type.Null()]) }, { additionalProperties: false })),
  'settings.get': call(Empty),
  'settings.save': call(Settings),
  'sources.list': call(Empty),
  'sources.save': call(SourceInput),
  'sources.remove': call(Type.Object({ id: Id }, { additionalProperties: false })),
  'sources.test': call(SourceInput),
  'keys.list': call(Empty),
  'keys.create': call(
    Type.Object(
      { orgId: Id, name: Type.String({ minLength: 1, maxLength: 200 }) },
      { additionalProperties: false },
    ),
  ),
  'keys.revoke': call(Type.Object({ id: Id }, { additionalProperties: false })),
  'snoozes.list': call(Type.Object({ orgId: Id }, { additionalProperties: false })),
  'snoozes.set': call(
    Type.Object({ orgId: Id, datasetId: Id, kind: SnoozeKindSchema }, { additionalProperties: false }),
  ),
  'snoozes.clear': call(Type.Object({ orgId: Id, datasetId: Id }, { additionalProperties: false })),
  'data.export': call(Type.Object({ orgId: Id }, { additionalProperties: false })),
  /** The org's live incidents, in the Triage view's order. */
  'incidents.list': call(Type.Object({ orgId: Id }, { additionalProperties: false })),
  /**
   * Acknowledges one dataset's failure (`datasetId`) or every troubled failure of an incident (`causeId`:
   * its id, or a cause key with one live incident): one of the two.
   */
  'acks.set': call(
    Type.Object(
      {
        orgId: Id,
        datasetId: Type.Union([Id, Type.Null()]),
        causeId: Type.Union([Type.String({ minLength: 1, maxLength: MAX_CAUSE_ID_LENGTH }), Type.Null()]),
        // Counted once trimmed, by the engine (as the CLI's --note): 5,000 spaces and "y" is the note "y".
        note: Type.Union([Type.String(), Type.Null()]),
      },
      { additionalProperties: false },
    ),
  ),
  'acks.clear': call(
    Type.Object(
      {
        orgId: Id,
        datasetId: Type.Union([Id, Type.Null()]),
        causeId: Type.Union([Type.String({ minLength: 1, maxLength: MAX_CAUSE_ID_LENGTH }), Type.Null()]),
      },
      { additionalProperties: false },
    ),
  ),
  'acks.list': call(
    Type.Object({ orgId: Id, includeEnded: Type.Boolean() }, { additionalProperties: false }),
  ),
  /** The dataset's cause and acknowledgement now (null when it is not FAILED or MISSING). */
  'dataset.triage': call(Type.Object({ orgId: Id, datasetId: Id }, { additionalProperties: false })),
  'dataset.timeline': call(Type.Object({ orgId: Id, datasetId: Id }, { additionalProperties: false })),
  /** The org's deadlines of the next `hours`, soonest first, each with its dataset's habits. */
  'upcoming.list': call(
    Type.Object(
      { orgId: Id, hours: Type.Integer({ minimum: 1, maximum: MAX_UPCOMING_HOURS }) },
      { additionalProperties: false },
    ),
  ),
  /** The org's overdue (unverified) datasets: deadlines passed since its last successful sync, while stale. */
  'overdue.get': call(Type.Object({ orgId: Id }, { additionalProperties: false })),
  /** One dataset's place on the deadline clock: previous and next deadlines, habits, or why none. */
  'dataset.deadlines': call(Type.Object({ orgId: Id, datasetId: Id }, { additionalProperties: false })),
  /**
   * The org's shift handoff since a time (RFC 3339; a duration like 8h is read too) up to now; `rows`:
   * only the first rows of each section (shared/handoff.ts handoffFirstRows), the summary counting all.
   */
  'handoff.get': call(
    Type.Object(
      {
        orgId: Id,
        since: Type.String({ minLength: 1, maxLength: 100 }),
        rows: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
      },
      { additionalProperties: false },
    ),
  ),
  /** Reliability statistics over the last 7/30/90 days, worst group first; `key`: only that group. */
  'stats.get': call(
    Type.Object(
      {
        orgId: Id,
        groupBy: StatsGroupBySchema,
        days: StatsDaysSchema,
        /** A dataset id, supplier id or product name ("" = the datasets naming none); null or absent: all. */
        key: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
        /**
         * false: each group's `weeks` left empty (a 10k org's datasets with their weeks are tens of MB; the
         * chart asks for its one group by key). Default true.
         */
        weeks: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
  ),
  'team.status': call(Empty),
  'team.join': call(
    Type.Object(
      {
        url: Type.String({ minLength: 1, maxLength: 2048 }),
        token: Type.String({ minLength: 1, maxLength: 200 }),
      },
      { additionalProperties: false },
    ),
  ),
  'team.leave': call(Type.Object({ orgId: Id }, { additionalProperties: false })),
  /** The org's notification rules in force (its own, else the default set), with the defaults. */
  'rules.get': call(Type.Object({ orgId: Id }, { additionalProperties: false })),
  /**
   * Saves the org's rule set, checked whole by shared/ruleCheck.ts: a refused set changes nothing and
   * comes back with its problems named by field (`set` is any JSON so each problem can be named).
   */
  'rules.save': call(Type.Object({ orgId: Id, set: Type.Unknown() }, { additionalProperties: false })),
  /** Back to the default rules. */
  'rules.reset': call(Type.Object({ orgId: Id }, { additionalProperties: false })),
  /**
   * What `set` (saved or not) would have sent over the last `days`, replayed over the stored history
   * beside what the rules in force sent; days counted in `timeZone` (an IANA zone: the user's).
   */
  'rules.replay': call(
    Type.Object(
      {
        orgId: Id,
        set: Type.Unknown(),
        days: Type.Integer({ minimum: 1, maximum: RULE_LOG_DAYS }),
        timeZone: Type.String({ minLength: 1, maxLength: 100 }),
      },
      { additionalProperties: false },
    ),
  ),
  /** The org's deliveries to hooks and webhooks given up, the latest first. */
  'routes.deadLetters': call(Type.Object({ orgId: Id }, { additionalProperties: false })),
  /** Puts one dead letter back on its way (a person's decision: it may arrive twice). */
  'routes.sendAgain': call(
    Type.Object(
      { id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) },
      { additionalProperties: false },
    ),
  ),
} as const;

/** What each call answers. */
export interface RpcResponses {
  'database.status': DatabaseStatus;
  'orgs.list': OrgView[];
  'datasets.rows': RowsPage;
  'datasets.counts': StatusCounts;
  'dataset.get': DatasetRecord | null;
  'delivery.tasks': DeliveryTasksView;
  'sync.states': SourceState[];
  'sync.now': { started: number };
  'settings.get': SettingsView;
  'settings.save': SettingsView;
  'sources.list': SourceView[];
  'sources.save': SourceView;
  'sources.remove': { removed: boolean };
  'sources.test': { ok: boolean; message: string };
  'keys.list': ApiKeyView[];
  'keys.create': { key: string; info: ApiKeyView };
  'keys.revoke': { revoked: boolean };
  'snoozes.list': SnoozeView[];
  'snoozes.set': SnoozeView;
  'snoozes.clear': { cleared: boolean };
  'data.export': { path: string; datasets: number };
  'incidents.list': Incident[];
  'acks.set': { acknowledged: AcknowledgementView[] };
  'acks.clear': { cleared: number };
  'acks.list': AcknowledgementView[];
  'dataset.triage': DatasetTriage | null;
  'dataset.timeline': TimelineEntry[];
  'upcoming.list': UpcomingDeadlines;
  'overdue.get': OverdueSummary;
  'dataset.deadlines': DatasetDeadlines | null;
  'handoff.get': HandoffReport;
  'stats.get': ReliabilityStats;
  'team.status': TeamStatus[];
  'team.join': TeamStatus;
  /** How many of this member's changes never reached the team; the org's own remote again, if it had one. */
  'team.leave': { unpushed: number; restoredFrom: string | null };
  'rules.get': RulesView;
  'rules.save': RulesSaveResult;
  'rules.reset': RulesView;
  'rules.replay': ReplayResult;
  'routes.deadLetters': DeadLetter[];
  /** The letter sent again; `delivering`: a deliverer runs now (else it goes out at the next start). */
  'routes.sendAgain': { letter: DeadLetter; delivering: boolean };
}

/** Events the engine pushes to every open window. */
export interface RpcEvents {
  /** A sync cycle finished (its transitions; whether it changed stored data). */
  'sync.cycle': CycleEvent;
  'source.state': SourceState;
  /** The app asks the window to show a place (a notification or the tray was clicked): a route path. */
  'app.navigate': { path: string };
  /** The database finished opening, or the disk started, went on, or stopped refusing its writes. */
  'database.status': DatabaseStatus;
  /** A team exchange's status changed (online, offline, changes waiting). */
  'team.status': TeamStatus;
}

export type RpcCall = keyof typeof RPC_CALLS;
export type RpcEvent = keyof RpcEvents;
export type RpcRequest<C extends RpcCall> = Static<(typeof RPC_CALLS)[C]['request']>;
export type RpcResponse<C extends RpcCall> = RpcResponses[C];

/** Fails to compile when a call has no response type, or a response type no call. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const CONTRACT_COMPLETE: Same<RpcCall, keyof RpcResponses> = true;

/** The engine's side: one handler per call (a missing one is a compile error where this is satisfied). */
export type RpcHandlers = { [C in RpcCall]: (request: RpcRequest<C>) => Promise<RpcResponse<C>> };

/** The renderer's side, whatever the transport. `on` returns the function that unsubscribes. */
export interface RpcClient {
  /** `signal`: the answer is no longer wanted (a newer query); the transport drops it as early as it can. */
  call<C extends RpcCall>(
    name: C,
    request: RpcRequest<C>,
    options?: { signal?: AbortSignal },
  ): Promise<RpcResponse<C>>;
  on<E extends RpcEvent>(name: E, listener: (payload: RpcEvents[E]) => void): () => void;
}

export const RPC_ERROR_CODES = [
  'invalid-argument',
  'not-found',
  'unauthenticated',
  'too-large',
  'unavailable',
  'internal',
] as const;
export type RpcErrorCode = (typeof RPC_ERROR_CODES)[number];

/** A call that failed, with a message meant for the user. */
export class RpcError extends Error {
  constructor(
    readonly code: RpcErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** How a failed call travels over either transport. */
export interface RpcErrorBody {
  error: { code: RpcErrorCode; message: string };
}

export const isRpcCall = (name: string): name is RpcCall => Object.hasOwn(RPC_CALLS, name);
export const RPC_EVENTS = [
  'sync.cycle',
  'source.state',
  'app.navigate',
  'database.status',
  'team.status',
] as const satisfies readonly RpcEvent[];
/** Fails to compile when an event is missing from RPC_EVENTS (the transports subscribe by that list). */
export const EVENTS_COMPLETE: Same<RpcEvent, (typeof RPC_EVENTS)[number]> = true;
