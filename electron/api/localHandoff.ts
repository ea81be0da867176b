/**
 * `GET /local/v1/handoff?since=8h` (docs/architecture.md#handoff): the org's shift handoff since a time — the
 * engine's report as JSON, or with `format=md` the same Markdown the window copies and the CLI prints.
 * Read-only, with the other /local/v1 endpoints' keys, scoping, errors and caching headers.
 */
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { HANDOFF_AT_RISK_HOURS, type HandoffReport } from '../../shared/handoff';
import { DEFAULT_HANDOFF_HOURS } from '../../shared/handoffOptions';
import { handoffMarkdown } from '../../shared/handoffMarkdown';
import { parseHandoffSince } from '../../shared/handoffSince';
import type { OnCallKnowledge } from '../knowledge/service';
import type { Store } from '../store/database';
import { ApiError, quote } from './errors';
import {
  Acknowledgement,
  FORMAT_RULE,
  LOCAL_ERRORS,
  type LocalAnswer,
  ROWS_RULE,
  SINCE_RULE,
} from './localSchemas';
import { Deadline } from './localUpcoming';
import { clockFreeTag, notModified, orgOf } from './versioning';

export const HANDOFF_PATH = '/local/v1/handoff';

const HANDOFF_CLOCK_FIELDS = ['since', 'generatedAt', 'atRiskUntil'] as const;

const NullableString = Type.Union([Type.String(), Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);

const datasetFields = {
  datasetId: Type.String(),
  datasetName: NullableString,
  supplierId: NullableString,
  supplierName: NullableString,
  dataProductName: NullableString,
};

const Note = Type.Object({ at: DateTime, by: NullableString, text: Type.String() });

const Trouble = Type.Object(
  {
    ...datasetFields,
    status: Type.String({ description: 'FAILED or MISSING.' }),
    deliveryId: NullableString,
    since: Type.String({
      format: 'date-time',
      description:
        'Its failure time: the first failed task’s end, else its stage’s time, else the delivery’s own time; the deadline when MISSING; never after generatedAt.',
    }),
    isNew: Type.Boolean({ description: 'It failed within the window (since ≥ the window’s start).' }),
    incidentId: Type.String({ description: 'The incident it belongs to (/local/v1/incidents).' }),
    causeId: Type.String(),
    causeTitle: Type.String(),
    message: NullableString,
    acknowledgement: Type.Union([Acknowledgement, Type.Null()]),
    notes: Type.Array(Note, {
      description: 'The window’s other acknowledgement notes (withdrawn or ended ones), oldest first.',
    }),
  },
  { description: 'A FAILED or MISSING dataset now, with its incident and who owns it.' },
);

const Recovery = Type.Object(
  {
    ...datasetFields,
    was: Type.String({ description: 'The troubled status it left.' }),
    status: Type.String({ description: 'Its status now.' }),
    recoveredAt: Type.String({
      format: 'date-time',
      description:
        'When it left that status (the next delivery’s time, never after the mirror learned of it); within the window.',
    }),
  },
  { description: 'Its trouble ended within the window; neither FAILED nor MISSING now.' },
);

const OverdueDataset = Type.Object({
  ...datasetFields,
  deadlines: Type.Integer(),
  since: DateTime,
});

const Overdue = Type.Object(
  {
    known: Type.Boolean({ description: 'false: no running source of the org, so staleness is not known.' }),
    stale: Type.Boolean(),
    lastSuccessAt: NullableDateTime,
    deadlines: Type.Integer(),
    datasets: Type.Array(OverdueDataset),
  },
  { description: 'Overdue (unverified): deadlines passed since the last successful sync while stale.' },
);

const Snooze = Type.Object({
  orgId: Type.String(),
  datasetId: Type.String(),
  datasetName: NullableString,
  kind: Type.Union([
    Type.Literal('1h'),
    Type.Literal('4h'),
    Type.Literal('next-delivery'),
    Type.Literal('healthy'),
  ]),
  until: NullableDateTime,
  deliveryId: NullableString,
  createdAt: DateTime,
});

const Outage = Type.Object({
  sourceId: Type.String(),
  sourceName: Type.String(),
  lostAt: DateTime,
  regainedAt: NullableDateTime,
  lastSuccessAt: NullableDateTime,
  imported: Type.Boolean({ description: 'From an imported snapshot (another machine’s contact).' }),
});

const count = Type.Integer({ minimum: 0 });
const Summary = Type.Object({
  newlyFailed: count,
  recovered: count,
  stillFailing: count,
  missing: count,
  overdue: Type.Union([count, Type.Null()], {
    description: 'null: not known here (no running instance syncs the org).',
  }),
  snoozed: count,
  atRisk: Type.Integer({
    minimum: 0,
    description: 'Datasets with at-risk deadlines (the Markdown lists one line each).',
  }),
  outages: count,
});

const HandoffBody = Type.Object({
  orgId: Type.String(),
  orgName: Type.String(),
  since: DateTime,
  generatedAt: DateTime,
  atRiskUntil: DateTime,
  summary: Summary,
  newlyFailed: Type.Array(Trouble, {
    description: 'FAILED now, failed within the window; newest first (by since, then datasetId).',
  }),
  recovered: Type.Array(Recovery, { description: 'Newest first (by recoveredAt, then datasetId).' }),
  stillFailing: Type.Array(Trouble, { description: 'FAILED now, failed before the window; newest first.' }),
  missing: Type.Array(Trouble, { description: 'MISSING now; newest first.' }),
  overdue: Overdue,
  snoozed: Type.Array(Snooze, { description: 'Snoozes in force now, newest first (by createdAt).' }),
  atRisk: Type.Array(Deadline, {
    description: `At-risk deadlines of the next ${HANDOFF_AT_RISK_HOURS} h, soonest first.`,
  }),
  outages: Type.Array(Outage, {
    description: 'Sync outages overlapping the window, newest first (by lostAt).',
  }),
});

const HandoffQuery = Type.Object({
  since: Type.Optional(Type.String({ maxLength: 100, description: SINCE_RULE })),
  format: Type.Optional(Type.String({ maxLength: 10, description: FORMAT_RULE })),
  rows: Type.Optional(Type.String({ maxLength: 20, description: ROWS_RULE })),
});

// The response schema says exactly what the engine's type says (a compile error otherwise).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const HANDOFF_SCHEMA_MATCHES: Same<Static<typeof HandoffBody>, HandoffReport> = true;

function sinceOf(value: string | undefined, now: Date): Date {
  try {
    return parseHandoffSince(value ?? `${DEFAULT_HANDOFF_HOURS}h`, now);
  } catch (error) {
    // The message quotes the value (shortened there) and names the accepted forms.
    throw new ApiError('INVALID_ARGUMENT', `since: ${(error as Error).message}`, 'since');
  }
}

function rowsOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const rows = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(rows) || rows < 1 || rows > 100_000)
    throw new ApiError('INVALID_ARGUMENT', `rows '${quote(value)}': ${ROWS_RULE}`, 'rows');
  return rows;
}

function formatOf(value: string | undefined): 'json' | 'md' {
  if (value === undefined || value === 'json') return 'json';
  if (value === 'md') return 'md';
  throw new ApiError('INVALID_ARGUMENT', `format '${quote(value)}': ${FORMAT_RULE}`, 'format');
}

export function registerHandoffRoute(
  app: FastifyInstance,
  store: Store,
  knowledge: OnCallKnowledge,
  answer: LocalAnswer,
): void {
  app.get<{ Querystring: Static<typeof HandoffQuery> }>(
    HANDOFF_PATH,
    {
      schema: {
        querystring: HandoffQuery,
        response: {
          200: {
            description: 'The report as JSON, or with format=md as Markdown (text/markdown).',
            content: {
              'application/json': { schema: HandoffBody },
              'text/markdown': { schema: Type.String() },
            },
          },
          ...LOCAL_ERRORS,
        },
        summary: "The org's shift handoff since a time",
        description: `Since \`since\` (default ${DEFAULT_HANDOFF_HOURS} h ago) up to now: newly FAILED datasets with cause, acknowledgement and notes; recovered; still failing; MISSING; overdue (unverified); snoozed; at-risk deadlines of the next ${HANDOFF_AT_RISK_HOURS} h; sync outages. \`format=md\` answers the same report as Markdown, as the window's "Copy as Markdown" and the CLI's \`handoff\` print it. \`rows\` lists only the first rows of each section, as the window asks for them.`,
      },
    },
    async (request, reply) => {
      const format = formatOf(request.query.format);
      const since = sinceOf(request.query.since, knowledge.now());
      const report = await knowledge.handoff(orgOf(request), since, rowsOf(request.query.rows));
      // A relative `since`, when it was made and the at-risk horizon move with the clock; the report's
      // contents are the answer, in either format.
      if (format === 'json') return answer(request, reply, report, HANDOFF_CLOCK_FIELDS);
      const markdown = handoffMarkdown(report);
      if (notModified(store, request, reply, clockFreeTag(report, HANDOFF_CLOCK_FIELDS, 'md'))) return reply;
      return reply.type('text/markdown; charset=utf-8').send(markdown);
    },
  );
}
