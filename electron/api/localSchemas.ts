/**
 * Schemas of the read-only `/local/v1` endpoints (docs/api.md#local-v1: the mirror's own knowledge, same keys,
 * scoping and errors as v2). As for v2, they validate requests, type the handlers and generate the
 * OpenAPI document; the response schemas are checked against shared/causes.ts and shared/timeline.ts
 * at compile time, so the document cannot drift from what the engine returns.
 */
import { DEFAULT_HANDOFF_HOURS } from '../../shared/handoffOptions';
import { MAX_SINCE_DAYS } from '../../shared/handoffSince';
import { SINCE_FORMS } from '../../shared/handoffOptions';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import {
  type AcknowledgementView,
  type Incident,
  MAX_CAUSE_ID_LENGTH,
  UNKNOWN_CAUSE_ID,
} from '../../shared/causes';
import { ErrorBody } from '../../shared/schemas';
import { DEFAULT_UPCOMING_HOURS, MAX_UPCOMING_HOURS } from '../../shared/upcoming';
import {
  DEFAULT_STATS_DAYS,
  DEFAULT_STATS_GROUP_BY,
  STATS_DAYS,
  STATS_GROUPS,
} from '../../shared/reliability';
import { STAGES } from '../../shared/status';
import { TIMELINE_KINDS, TIMELINE_LIMIT, type TimelineEntry } from '../../shared/timeline';

export const DEFAULT_TIMELINE_ENTRIES = 100;
/** Longest datasetId accepted as a filter (the router's limit for a path segment). */
const MAX_ID_LENGTH = 2048;

const CAUSE_FORMS = `STAGE:SHORTCODE (stages: ${STAGES.join(', ')}; e.g. ingest:E_AUTH_FAILED, or ingest: for no code), missing:SUPPLIER_ID (missing: for an unknown supplier) or ${UNKNOWN_CAUSE_ID}`;

export const Flag = (fallback: boolean, description: string) =>
  Type.String({
    pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$',
    description: `${description} true, false, 1 or 0 (any case); default ${String(fallback)}.`,
  });

const CauseParameter = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: MAX_CAUSE_ID_LENGTH,
    description: `${description} ${CAUSE_FORMS}.`,
  });

export const CausesQuery = Type.Object({
  cause: Type.Optional(CauseParameter('Only incidents of this cause (an empty list when none is live):')),
  includeDatasets: Type.Optional(
    Flag(true, 'Whether each incident lists its datasets (false leaves `datasets` out).'),
  ),
});
export type CausesQuery = Static<typeof CausesQuery>;

export const INCIDENT_ID_FORM = 'inc- and ten lower-case hex digits (e.g. inc-3f9a0c2b71)';

export const IncidentsQuery = Type.Object({
  ...CausesQuery.properties,
  incident: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 40,
      description: `Only this incident, live or ended (an empty list when there is none): ${INCIDENT_ID_FORM}.`,
    }),
  ),
  includeEnded: Type.Optional(
    Flag(false, 'Also incidents that ended (kept 90 days after their end), after the live ones.'),
  ),
});
export type IncidentsQuery = Static<typeof IncidentsQuery>;

export const AcknowledgementsQuery = Type.Object({
  includeEnded: Type.Optional(
    Flag(false, 'Also acknowledgements that ended (the dataset recovered or failed again).'),
  ),
  datasetId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_ID_LENGTH,
      description: 'Only acknowledgements of this dataset (its datasetId, exactly).',
    }),
  ),
  cause: Type.Optional(
    CauseParameter(
      'Only acknowledgements made for this cause (`ack --cause`) or of the failure that puts its dataset in this cause now:',
    ),
  ),
});
export type AcknowledgementsQuery = Static<typeof AcknowledgementsQuery>;

export const TimelineParams = Type.Object({
  datasetId: Type.String({
    description: 'The datasetId, or its v1 legacyDatasetId when no dataset has that id.',
  }),
});
export const TimelineQuery = Type.Object({
  limit: Type.Optional(
    Type.String({
      pattern: '^[0-9]+$',
      description: `Entries to return, newest first: 1 to ${TIMELINE_LIMIT}; default ${DEFAULT_TIMELINE_ENTRIES}.`,
    }),
  ),
});
export type TimelineQuery = Static<typeof TimelineQuery>;

const NullableString = Type.Union([Type.String(), Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });

export const Acknowledgement = Type.Object(
  {
    orgId: Type.String(),
    datasetId: Type.String(),
    deliveryId: Type.String({ description: 'The failed (or missing) delivery it is about.' }),
    status: Type.String({ description: 'The dataset status when acknowledged: FAILED or MISSING.' }),
    causeId: Type.Union([Type.String(), Type.Null()], {
      description:
        'The incident it was acknowledged with (ack --cause; a cause key when made before incidents); null for one failure.',
    }),
    note: NullableString,
    by: Type.String({ description: 'Who acknowledged.' }),
    at: DateTime,
    endedAt: Type.Union([DateTime, Type.Null()], {
      description: 'When it ended by itself; null while it holds.',
    }),
    endReason: NullableString,
  },
  { description: 'An acknowledgement: someone owns this failure.' },
);

const CauseDataset = Type.Object({
  datasetId: Type.String(),
  datasetName: NullableString,
  dataProductName: NullableString,
  supplierId: NullableString,
  supplierName: NullableString,
  status: Type.String({ description: 'FAILED or MISSING.' }),
  deliveryId: Type.Union([Type.String(), Type.Null()], { description: 'The failed (or missing) delivery.' }),
  since: Type.String({
    format: 'date-time',
    description:
      "When it failed: the first failed task's end, else its stage's time, else the delivery's own time; the deadline when MISSING; never after the mirror learned of it.",
  }),
  message: Type.Union([Type.String(), Type.Null()], { description: 'The first failed task’s message.' }),
  acknowledgement: Type.Union([Acknowledgement, Type.Null()]),
});

export const IncidentSchema = Type.Object(
  {
    incidentId: Type.String({ description: `Stable as failures join: ${INCIDENT_ID_FORM}.` }),
    causeId: Type.String({ description: `The cause key its failures share: ${CAUSE_FORMS}` }),
    kind: Type.Enum(['failed', 'missing', 'unknown']),
    title: Type.String({ description: 'E.g. "Ingest failed: E_AUTH_FAILED".' }),
    stage: Type.Union([Type.Enum(STAGES), Type.Null()]),
    shortCode: NullableString,
    count: Type.Integer({ description: 'Its datasets troubled now.' }),
    unacknowledged: Type.Integer({ description: 'Of those, how many nobody acknowledged.' }),
    recovered: Type.Integer({
      description: 'Its failures that are over (recovered, or failed again otherwise).',
    }),
    suppliers: Type.Array(Type.Object({ id: NullableString, name: NullableString, count: Type.Integer() }), {
      description: 'The suppliers of all its failures, most first.',
    }),
    firstFailureAt: Type.String({ format: 'date-time', description: 'Its earliest failure time.' }),
    lastFailureAt: Type.String({ format: 'date-time', description: 'Its latest failure time.' }),
    endedAt: Type.Union([DateTime, Type.Null()], {
      description: 'When none of its datasets was troubled any more; null while live.',
    }),
    representative: Type.Union(
      [
        Type.Object({
          datasetId: Type.String(),
          datasetName: NullableString,
          deliveryId: NullableString,
          message: NullableString,
        }),
        Type.Null(),
      ],
      { description: 'Its most recent failure troubled now, with its message.' },
    ),
    datasets: Type.Optional(
      Type.Array(CauseDataset, {
        description:
          'Its failures troubled now: unacknowledged first, then by name; left out with includeDatasets=false.',
      }),
    ),
  },
  {
    description:
      'Failures of one cause (first failed stage and shortCode; MISSING by supplier; "unknown" while tasks are not stored) whose failure times lie within the incident gap (default 6 h) of each other.',
  },
);

/** `/local/v1/causes` (before incidents): each incident with its former names of its first and last times. */
export const CauseSchema = Type.Object(
  {
    ...IncidentSchema.properties,
    firstSeenAt: Type.String({ format: 'date-time', description: 'Deprecated: firstFailureAt.' }),
    lastSeenAt: Type.String({ format: 'date-time', description: 'Deprecated: lastFailureAt.' }),
  },
  {
    description:
      'An incident, as /local/v1/causes answered before incidents (same order, same fields and more).',
  },
);

export const TimelineEntrySchema = Type.Object({
  at: DateTime,
  kind: Type.Enum(TIMELINE_KINDS),
  from: Type.Union([Type.String(), Type.Null()], {
    description: 'status: the status before (null: first seen).',
  }),
  to: Type.Union([Type.String(), Type.Null()], {
    description: 'status: the status after (null: removed by the remote); acknowledged: the status owned.',
  }),
  deliveryId: NullableString,
  text: Type.Union([Type.String(), Type.Null()], {
    description: 'The notification title, the note, why an acknowledgement ended, the outage.',
  }),
  by: Type.Union([Type.String(), Type.Null()], { description: 'Who acknowledged.' }),
});

export const IncidentsBody = Type.Object({
  incidents: Type.Array(IncidentSchema, {
    description: 'Live ones nobody acknowledged all of first, then by last failure, newest first.',
  }),
  syncedAt: Type.Union([DateTime, Type.Null()], {
    description: "The last successful sync of the key's org; null if never.",
  }),
});
export type IncidentsBody = Static<typeof IncidentsBody>;

export const CausesBody = Type.Object({
  causes: Type.Array(CauseSchema, { description: 'The live incidents, in the incidents order.' }),
  syncedAt: Type.Union([DateTime, Type.Null()], {
    description: "The last successful sync of the key's org; null if never.",
  }),
});
export type CausesBody = Static<typeof CausesBody>;

export const AcknowledgementsBody = Type.Object({
  acknowledgements: Type.Array(Acknowledgement, {
    description: 'Open ones first, then ended ones; each group newest first.',
  }),
});
export type AcknowledgementsBody = Static<typeof AcknowledgementsBody>;

export const TimelineBody = Type.Object({
  datasetId: Type.String({ description: 'The dataset’s datasetId (also when asked by legacyDatasetId).' }),
  entries: Type.Array(TimelineEntrySchema, { description: 'Newest first.' }),
});
export type TimelineBody = Static<typeof TimelineBody>;

/** The error answers every /local/v1 endpoint may give, for the OpenAPI document. */
export const LOCAL_ERRORS = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  429: ErrorBody,
};
const errors = LOCAL_ERRORS;

/**
 * Sends a /local/v1 body as JSON with its ETag from its own bytes (localRoutes.ts makes one per store);
 * with `clockFields`, a weak tag of the body without them (`clockFreeTag`).
 */
export type LocalAnswer = <T extends object>(
  request: FastifyRequest,
  reply: FastifyReply,
  body: T,
  clockFields?: readonly (keyof T & string)[],
) => FastifyReply;

export const LOCAL_RESPONSES = {
  causes: { 200: CausesBody, ...errors },
  incidents: { 200: IncidentsBody, ...errors },
  acknowledgements: { 200: AcknowledgementsBody, ...errors },
  timeline: { 200: TimelineBody, ...errors },
};

export const HOURS_RULE = `hours must be given once: a whole number of hours from 1 to ${MAX_UPCOMING_HOURS} (default ${DEFAULT_UPCOMING_HOURS})`;

export const GROUP_BY_RULE = `groupBy must be given once: ${STATS_GROUPS.join(', ')} (default ${DEFAULT_STATS_GROUP_BY})`;
export const DAYS_RULE = `days must be given once: ${STATS_DAYS.join(', ')} (default ${DEFAULT_STATS_DAYS})`;
export const KEY_RULE =
  'key must be given once: a datasetId, supplierId or dataProductName (as groupBy says) of at most 1000 characters';

export const SINCE_RULE = `since must be given once: ${SINCE_FORMS}, not in the future, a duration at most ${MAX_SINCE_DAYS} days and a time in years 0000–9999 (default ${DEFAULT_HANDOFF_HOURS}h)`;
export const FORMAT_RULE = 'format must be given once: json or md (default json)';
export const ROWS_RULE =
  'rows must be given once: a whole number from 1 to 100000 (each section lists only its first rows; the summary still counts all)';

/** What each parameter accepts, for 400 messages. */
export const LOCAL_PARAMETER_RULES: Record<string, string> = {
  cause: `cause must be given once, as ${CAUSE_FORMS}`,
  includeDatasets: 'includeDatasets must be given once: true, false, 1 or 0 (default true)',
  includeEnded: 'includeEnded must be given once: true, false, 1 or 0 (default false)',
  weeks: 'weeks must be given once: true, false, 1 or 0 (default true)',
  datasetId: `datasetId must be given once: a datasetId of 1 to ${MAX_ID_LENGTH} characters`,
  hours: HOURS_RULE,
  limit: `limit must be given once: an integer from 1 to ${TIMELINE_LIMIT} (default ${DEFAULT_TIMELINE_ENTRIES})`,
  groupBy: GROUP_BY_RULE,
  days: DAYS_RULE,
  key: KEY_RULE,
  since: SINCE_RULE,
  format: FORMAT_RULE,
  rows: ROWS_RULE,
};

/** A flag's value; `fallback` when absent (the schema has already refused anything but true/false/1/0). */
export function flag(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  return value === '1' || value.toLowerCase() === 'true';
}

// The response schemas say exactly what the engine's types say (a compile error otherwise).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type IncidentOut = Omit<Incident, 'datasets'> & { datasets?: Incident['datasets'] };
export const SCHEMAS_MATCH: [
  Same<Static<typeof IncidentSchema>, IncidentOut>,
  Same<Static<typeof Acknowledgement>, AcknowledgementView>,
  Same<Static<typeof TimelineEntrySchema>, TimelineEntry>,
] = [true, true, true];
