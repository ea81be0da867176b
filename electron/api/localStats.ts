/**
 * `GET /local/v1/stats?groupBy=supplier&days=30` (docs/architecture.md#reliability): on-time, late, missing
 * and failed rates, lateness, time to recover and weekly trends per dataset, supplier or data product,
 * worst first — the engine's precomputed statistics (knowledge/statsCache.ts). Read-only, with the other
 * /local/v1 endpoints' keys, scoping, errors and caching headers.
 */
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import {
  DEFAULT_STATS_DAYS,
  DEFAULT_STATS_GROUP_BY,
  type ReliabilityFigures,
  type StatsDays,
  type StatsGroup,
  type StatsGroupBy,
  type WeekFigures,
  statsDaysOf,
  statsGroupByOf,
} from '../../shared/reliability';
import type { OnCallKnowledge } from '../knowledge/service';
import type { Store } from '../store/database';
import { ApiError, quote } from './errors';
import {
  DAYS_RULE,
  Flag,
  GROUP_BY_RULE,
  KEY_RULE,
  LOCAL_ERRORS,
  type LocalAnswer,
  flag,
} from './localSchemas';
import { orgOf, syncedAt } from './versioning';

export const STATS_PATH = '/local/v1/stats';

const DateTime = Type.String({ format: 'date-time' });
const Rate = (what: string) =>
  Type.Union([Type.Number(), Type.Null()], { description: `${what} / deliveries; null: none.` });
const Ms = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

const Figures = Type.Object({
  deliveries: Type.Integer({
    description:
      'Settled deliveries (HEALTHY, DELIVERED_LATE, MISSING, FAILED) with their deadline in the window.',
  }),
  onTime: Type.Integer({ description: 'HEALTHY.' }),
  late: Type.Integer({ description: 'DELIVERED_LATE.' }),
  missing: Type.Integer(),
  failed: Type.Integer(),
  onTimeRate: Rate('onTime'),
  lateRate: Rate('late'),
  missingRate: Rate('missing'),
  failedRate: Rate('failed'),
  medianLatenessMs: Ms(
    'Median of max(0, delivered − deadline) over the HEALTHY and DELIVERED_LATE ones with both times known (nearest rank), ms.',
  ),
  p90LatenessMs: Ms('The 90th percentile of the same (nearest rank), ms.'),
  recoveries: Type.Integer({
    description: 'FAILED → next HEALTHY episodes that ended (the HEALTHY delivery arrived) in the window.',
  }),
  medianTimeToRecoverMs: Ms(
    "Median episode length (nearest rank): from the first FAILED delivery's delivered time (else its deadline) to the next HEALTHY delivery's delivered time, ms.",
  ),
});

const Week = Type.Object({
  start: DateTime,
  end: DateTime,
  deliveries: Type.Integer(),
  onTime: Type.Integer(),
  late: Type.Integer(),
  missing: Type.Integer(),
  failed: Type.Integer(),
  onTimeRate: Type.Union([Type.Number(), Type.Null()]),
});

const Group = Type.Object({
  key: Type.String({
    description: 'The datasetId, supplierId or dataProductName ("" for the datasets that name none).',
  }),
  name: Type.Union([Type.String(), Type.Null()], { description: 'The dataset, supplier or product name.' }),
  supplier: Type.Union(
    [
      Type.Object({
        id: Type.Union([Type.String(), Type.Null()]),
        name: Type.Union([Type.String(), Type.Null()]),
      }),
      Type.Null(),
    ],
    {
      description:
        "groupBy=dataset: the dataset's supplier (tells datasets of one name apart); null for the other groupings.",
    },
  ),
  datasets: Type.Integer(),
  figures: Figures,
  weeks: Type.Array(Week, {
    description:
      "Oldest first; weeks end at the window's end, the oldest starts at `from` (shorter when days is not a multiple of 7).",
  }),
});

const StatsBody = Type.Object({
  groupBy: Type.Union([Type.Literal('dataset'), Type.Literal('supplier'), Type.Literal('dataProduct')]),
  days: Type.Union([Type.Literal(7), Type.Literal(30), Type.Literal(90)]),
  from: DateTime,
  to: DateTime,
  groups: Type.Array(Group, {
    description:
      'Worst first: lowest on-time rate, then most deliveries, then key; groups without deliveries last.',
  }),
  syncedAt: Type.Union([DateTime, Type.Null()], {
    description: "The last successful sync of the key's org; null if never.",
  }),
});
type StatsBody = Static<typeof StatsBody>;

// No length limit on groupBy and days: any value that is not allowed gets the allowed ones named.
const StatsQuery = Type.Object({
  groupBy: Type.Optional(Type.String({ description: GROUP_BY_RULE })),
  days: Type.Optional(Type.String({ description: DAYS_RULE })),
  key: Type.Optional(Type.String({ maxLength: 1000, description: KEY_RULE })),
  weeks: Type.Optional(
    Flag(
      true,
      "Whether each group carries its weekly trend (false: `weeks` empty — a 10k org's datasets with theirs are tens of MB).",
    ),
  ),
});

// The response schema says exactly what the engine's types say (a compile error otherwise).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const STATS_SCHEMA_MATCHES: [
  Same<Static<typeof Figures>, ReliabilityFigures>,
  Same<Static<typeof Week>, WeekFigures>,
  Same<Static<typeof Group>, StatsGroup>,
  Same<Static<typeof StatsBody>['groupBy'], StatsGroupBy>,
  Same<Static<typeof StatsBody>['days'], StatsDays>,
] = [true, true, true, true, true];

function groupByOf(value: string | undefined): StatsGroupBy {
  if (value === undefined) return DEFAULT_STATS_GROUP_BY;
  const groupBy = statsGroupByOf(value);
  if (groupBy === null)
    throw new ApiError('INVALID_ARGUMENT', `groupBy '${quote(value)}': ${GROUP_BY_RULE}`, 'groupBy');
  return groupBy;
}

function daysOf(value: string | undefined): StatsDays {
  if (value === undefined) return DEFAULT_STATS_DAYS;
  const days = statsDaysOf(value);
  if (days === null) throw new ApiError('INVALID_ARGUMENT', `days '${quote(value)}': ${DAYS_RULE}`, 'days');
  return days;
}

const GROUP_NAME: Record<StatsGroupBy, string> = {
  dataset: 'dataset',
  supplier: 'supplier',
  dataProduct: 'data product',
};

export function registerStatsRoute(
  app: FastifyInstance,
  store: Store,
  knowledge: OnCallKnowledge,
  answer: LocalAnswer,
): void {
  app.get<{ Querystring: Static<typeof StatsQuery> }>(
    STATS_PATH,
    {
      schema: {
        querystring: StatsQuery,
        response: { 200: StatsBody, ...LOCAL_ERRORS },
        summary:
          'Reliability per dataset, supplier or data product over the last 7, 30 or 90 days, worst first',
        description:
          'The window is the `days` before the start of the current hour (UTC). Counts and rates over the settled deliveries whose deadline falls in it; lateness (nearest-rank median and p90); time to recover (FAILED → next HEALTHY); weekly trends. With `key`, only that group (404 when the org has no such group). Body: `{ groupBy, days, from, to, groups, syncedAt }`.',
      },
    },
    async (request, reply) => {
      const groupBy = groupByOf(request.query.groupBy);
      const days = daysOf(request.query.days);
      const key = request.query.key ?? null;
      const orgId = orgOf(request);
      const weeks = flag(request.query.weeks, true);
      const { orgId: _org, ...stats } = await knowledge.stats(orgId, groupBy, days, key, { weeks });
      if (key !== null && stats.groups.length === 0)
        throw new ApiError('NOT_FOUND', `no ${GROUP_NAME[groupBy]} '${quote(key)}' among the org's datasets`);
      const body: StatsBody = {
        ...stats,
        syncedAt: await store.whenReadable(() => syncedAt(store, request)),
      };
      return answer(request, reply, body);
    },
  );
}
