/**
 * `GET /local/v1/upcoming?hours=6` (docs/architecture.md#deadlines): the org's deadlines of the next
 * hours, soonest first, each with its dataset's delivery habits and the at-risk mark — from the engine's
 * deadline clock and the history it holds in memory. Read-only, with the other /local/v1 endpoints' keys,
 * scoping, errors and caching headers.
 */
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import {
  AT_RISK_RULE,
  DEFAULT_UPCOMING_HOURS,
  MAX_UPCOMING_DEADLINES,
  MAX_UPCOMING_HOURS,
  type DeliveryHabits,
  type UpcomingDeadline,
} from '../../shared/upcoming';
import type { OnCallKnowledge } from '../knowledge/service';
import type { Store } from '../store/database';
import { ApiError, quote } from './errors';
import { HOURS_RULE, LOCAL_ERRORS, type LocalAnswer } from './localSchemas';
import { orgOf, syncedAt } from './versioning';

export const UPCOMING_PATH = '/local/v1/upcoming';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });

const Habits = Type.Object(
  {
    settled: Type.Integer({ description: 'Settled deliveries read (the newest, at most 20).' }),
    onTime: Type.Integer({ description: 'Of those, HEALTHY.' }),
    onTimeRate: Type.Union([Type.Number(), Type.Null()], { description: 'onTime / settled; null below 3.' }),
    typicalDeliveryMs: Type.Union([Type.Number(), Type.Null()], {
      description: 'Median of delivered − deadline over the delivered ones, ms (negative: early).',
    }),
    latestStatus: NullableString,
    atRisk: Type.Boolean({ description: AT_RISK_RULE }),
    riskReason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is at risk, in words.' }),
  },
  { description: "The dataset's delivery habits from its last 20 settled deliveries." },
);

export const Deadline = Type.Object({
  datasetId: Type.String(),
  datasetName: NullableString,
  supplierId: NullableString,
  supplierName: NullableString,
  dataProductName: NullableString,
  deadline: DateTime,
  timeZone: Type.String({ description: "The dataset's IANA zone (UTC when its config names none)." }),
  status: Type.Union([Type.String(), Type.Null()], { description: "The dataset's latestDeliveryStatus." }),
  habits: Habits,
});

const UpcomingBody = Type.Object({
  hours: Type.Integer(),
  from: DateTime,
  to: DateTime,
  deadlines: Type.Array(Deadline, { description: 'Soonest first, then by datasetId.' }),
  total: Type.Integer({ description: 'Deadlines in the window (more than listed when truncated).' }),
  truncated: Type.Boolean({ description: `At most ${MAX_UPCOMING_DEADLINES} are listed, the soonest.` }),
  invalidSchedules: Type.Integer({ description: 'Datasets whose schedule cannot be read (no deadlines).' }),
  syncedAt: Type.Union([DateTime, Type.Null()], {
    description: "The last successful sync of the key's org; null if never.",
  }),
});
type UpcomingBody = Static<typeof UpcomingBody>;

const UpcomingQuery = Type.Object({
  hours: Type.Optional(Type.String({ maxLength: 20, description: HOURS_RULE })),
});

// The response schema says exactly what the engine's types say (a compile error otherwise).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const UPCOMING_SCHEMA_MATCHES: [
  Same<Static<typeof Habits>, DeliveryHabits>,
  Same<Static<typeof Deadline>, UpcomingDeadline>,
] = [true, true];

function hoursOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_UPCOMING_HOURS;
  const hours = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(hours) || hours < 1 || hours > MAX_UPCOMING_HOURS)
    throw new ApiError('INVALID_ARGUMENT', `hours '${quote(value)}': ${HOURS_RULE}`, 'hours');
  return hours;
}

export function registerUpcomingRoute(
  app: FastifyInstance,
  store: Store,
  knowledge: OnCallKnowledge,
  answer: LocalAnswer,
): void {
  app.get<{ Querystring: Static<typeof UpcomingQuery> }>(
    UPCOMING_PATH,
    {
      schema: {
        querystring: UpcomingQuery,
        response: { 200: UpcomingBody, ...LOCAL_ERRORS },
        summary: "The org's deadlines of the next hours, soonest first, with the at-risk mark",
        description: `Each deadline from the dataset's schedule (cron in its zone), with its typical delivery (median of delivered − deadline over its last 20 deliveries), on-time rate and at-risk mark. ${AT_RISK_RULE} Body: \`{ hours, from, to, deadlines, total, truncated, invalidSchedules, syncedAt }\`.`,
      },
    },
    async (request, reply) => {
      const hours = hoursOf(request.query.hours);
      const orgId = orgOf(request);
      const { orgId: _org, ...upcoming } = await knowledge.upcoming(orgId, hours);
      const body: UpcomingBody = {
        ...upcoming,
        syncedAt: await store.whenReadable(() => syncedAt(store, request)),
      };
      // The window's bounds move with the clock; the deadlines in it are the answer.
      return answer(request, reply, body, ['from', 'to']);
    },
  );
}
