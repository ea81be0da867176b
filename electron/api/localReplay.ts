/**
 * `GET /local/v1/rules/replay?days=7` (docs/api.md "Replaying the rules"): what the org's rules in force
 * would have sent over the last days, replayed over the stored history by the evaluator the live alerts
 * run, beside what they did send — as JSON, or with `format=md` as `rules test` prints it. Read-only,
 * with the other /local/v1 endpoints' keys, scoping, errors and caching headers.
 */
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import type { RuleSet } from '../../shared/rules';
import { DEFAULT_REPLAY_DAYS } from '../../shared/rulesView';
import { type ReplayResult, replayRules } from '../alerts/replay';
import { replayMarkdown } from '../alerts/replayMarkdown';
import type { Store } from '../store/database';
import { RULE_LOG_DAYS } from '../store/tables/ruleLog';
import { ruleSetInForce } from '../store/tables/ruleSets';
import { ApiError, quote } from './errors';
import { FORMAT_RULE, LOCAL_ERRORS, type LocalAnswer } from './localSchemas';
import { clockFreeTag, notModified, orgOf } from './versioning';

export const REPLAY_PATH = '/local/v1/rules/replay';
export const REPLAY_DAYS_RULE = `days must be given once: a whole number of days from 1 to ${RULE_LOG_DAYS} (default ${DEFAULT_REPLAY_DAYS})`;

const CLOCK_FIELDS = ['from', 'to'] as const;

const DateTime = Type.String({ format: 'date-time' });

const Notification = Type.Object({
  id: Type.String({ description: 'Unique: a route delivers it at most once.' }),
  orgId: Type.String(),
  ruleId: Type.String(),
  ruleName: Type.String(),
  action: Type.Union([Type.Literal('notify'), Type.Literal('urgent'), Type.Literal('digest')]),
  event: Type.String({ description: 'failed, missing, late, recovered, contact-lost; or digest.' }),
  at: DateTime,
  title: Type.String(),
  body: Type.String(),
  target: Type.Object(
    { view: Type.String() },
    { additionalProperties: true, description: 'Where the window opens it (a view and its ids).' },
  ),
  routes: Type.Array(Type.String()),
  keys: Type.Array(Type.String(), { description: 'The events it tells of, each by its key.' }),
  datasetIds: Type.Array(Type.String()),
});

const ReplayBody = Type.Object({
  orgId: Type.String(),
  days: Type.Integer(),
  from: DateTime,
  to: DateTime,
  historyFrom: Type.Union([DateTime, Type.Null()], {
    description: "Where the replay starts when the org's history begins inside the window (its first sync).",
  }),
  note: Type.Union([Type.String(), Type.Null()]),
  notifications: Type.Array(Notification, { description: 'What the rules would have sent, oldest first.' }),
  sent: Type.Array(Notification, { description: 'What the rules in force did send, as recorded.' }),
  byDay: Type.Array(
    Type.Object({
      day: Type.String({ description: 'YYYY-MM-DD in the zone of the machine that serves the API.' }),
      count: Type.Integer(),
      sent: Type.Integer(),
      byRule: Type.Record(Type.String(), Type.Integer()),
    }),
  ),
  byRule: Type.Array(
    Type.Object({
      ruleId: Type.String(),
      name: Type.String(),
      action: Type.String(),
      count: Type.Integer(),
      sent: Type.Integer(),
    }),
  ),
});

const ReplayQuery = Type.Object({
  days: Type.Optional(Type.String({ maxLength: 20, description: REPLAY_DAYS_RULE })),
  format: Type.Optional(Type.String({ maxLength: 10, description: FORMAT_RULE })),
});

function daysOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_REPLAY_DAYS;
  const days = /^[0-9]{1,3}$/.test(value) ? Number(value) : NaN;
  if (!(days >= 1 && days <= RULE_LOG_DAYS))
    throw new ApiError('INVALID_ARGUMENT', `days '${quote(value)}': ${REPLAY_DAYS_RULE}`, 'days');
  return days;
}

function formatOf(value: string | undefined): 'json' | 'md' {
  if (value === undefined || value === 'json') return 'json';
  if (value === 'md') return 'md';
  throw new ApiError('INVALID_ARGUMENT', `format '${quote(value)}': ${FORMAT_RULE}`, 'format');
}

export interface ReplayRouteOptions {
  now: () => Date;
  /** The default rules of an org that saved none (recoveries follow the settings). */
  defaults: () => RuleSet;
  timeZone: string;
}

export function registerReplayRoute(
  app: FastifyInstance,
  store: Store,
  options: ReplayRouteOptions,
  answer: LocalAnswer,
): void {
  app.get<{ Querystring: Static<typeof ReplayQuery> }>(
    REPLAY_PATH,
    {
      schema: {
        querystring: ReplayQuery,
        response: {
          200: {
            description: 'The replay as JSON, or with format=md as Markdown (text/markdown).',
            content: {
              'application/json': { schema: ReplayBody },
              'text/markdown': { schema: Type.String() },
            },
          },
          ...LOCAL_ERRORS,
        },
        summary: 'What the rules in force would have sent over the last days',
        description: `Replays the org's notification rules over its stored history (the last \`days\`, default ${DEFAULT_REPLAY_DAYS}, at most ${RULE_LOG_DAYS}) with the evaluator the live alerts run: every notification with its rule, action, time, words and target, per day and per rule, beside what the rules did send. Before the org's first sync there is no history: \`historyFrom\` and \`note\` say where it starts.`,
      },
    },
    async (request, reply) => {
      const format = formatOf(request.query.format);
      const days = daysOf(request.query.days);
      const orgId = orgOf(request);
      const result: ReplayResult = await store.whenReadable(() => {
        const set = ruleSetInForce(store, orgId, options.defaults());
        return replayRules({ store, orgId, set, days, now: options.now(), timeZone: options.timeZone });
      });
      if (format === 'json') return answer(request, reply, result, CLOCK_FIELDS);
      if (notModified(store, request, reply, clockFreeTag(result, CLOCK_FIELDS, 'md'))) return reply;
      return reply.type('text/markdown; charset=utf-8').send(replayMarkdown(result, options.timeZone, false));
    },
  );
}
