/**
 * The read-only `/local/v1` endpoints (README "What only the mirror knows", docs/decisions.md
 * "Incidents"): what only the mirror knows — incidents, acknowledgements and each dataset's timeline —
 * for scripts, with the v2 endpoints' keys, org scoping,
 * errors and caching headers (they are registered beside them, behind the same hooks). Nothing here
 * writes: acknowledging is done from the window or the CLI.
 */
import type { FastifyInstance, FastifyRequest, FastifySchema, RouteGenericInterface } from 'fastify';
import { type Incident, causeIdOf, parseCauseId } from '../../shared/causes';
import { TIMELINE_LIMIT } from '../../shared/timeline';
import { listIncidents } from '../query/incidents';
import { resolveDatasetId } from '../query/dataset';
import { listAcknowledgements } from '../store/tables/acknowledgements';
import type { Store } from '../store/database';
import type { OnCallKnowledge } from '../knowledge/service';
import { UPCOMING_PATH, registerUpcomingRoute } from './localUpcoming';
import { STATS_PATH, registerStatsRoute } from './localStats';
import { HANDOFF_PATH, registerHandoffRoute } from './localHandoff';
import { REPLAY_PATH, type ReplayRouteOptions, registerReplayRoute } from './localReplay';
import { datasetTimeline } from '../store/tables/timeline';
import { ApiError, quote } from './errors';
import { INCIDENT_ID } from '../store/schema/incidents';
import {
  AcknowledgementsQuery,
  CausesQuery,
  DEFAULT_TIMELINE_ENTRIES,
  INCIDENT_ID_FORM,
  IncidentsQuery,
  LOCAL_PARAMETER_RULES,
  LOCAL_RESPONSES,
  type LocalAnswer,
  TimelineParams,
  TimelineQuery,
  flag,
  type AcknowledgementsBody,
  type CausesBody,
  type IncidentsBody,
  type TimelineBody,
} from './localSchemas';
import { clockFreeTag, contentTag, orgOf, sendJson, syncedAt } from './versioning';

export const LOCAL_PATHS = {
  incidents: '/local/v1/incidents',
  /** The name before incidents: kept for scripts that use it (docs/decisions.md "Incidents"). */
  causes: '/local/v1/causes',
  acknowledgements: '/local/v1/acknowledgements',
  timeline: '/local/v1/datasets/:datasetId/timeline',
  upcoming: UPCOMING_PATH,
  stats: STATS_PATH,
  handoff: HANDOFF_PATH,
  rulesReplay: REPLAY_PATH,
} as const;

/** The cause id in its canonical spelling; bad syntax is a 400 naming `cause` and the allowed forms. */
function canonicalCause(text: string, incidentToo = false): string {
  // The acknowledgements made with an incident carry its id (`ack --cause inc-…`).
  if (incidentToo && INCIDENT_ID.test(text)) return text;
  try {
    return causeIdOf(parseCauseId(text));
  } catch (error) {
    // parseCauseId's messages name the allowed forms (or stages); lengths are the schema's.
    throw new ApiError('INVALID_ARGUMENT', (error as Error).message, 'cause');
  }
}

function timelineLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIMELINE_ENTRIES;
  const limit = Number(value);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > TIMELINE_LIMIT)
    throw new ApiError(
      'INVALID_ARGUMENT',
      `limit '${quote(value)}': ${LOCAL_PARAMETER_RULES.limit!}`,
      'limit',
    );
  return limit;
}

const withoutDatasets = ({ datasets: _datasets, ...incident }: Incident): Omit<Incident, 'datasets'> =>
  incident;

/** An incident id as incidents are named; anything else is a 400 naming `incident`. */
function incidentParameter(text: string | undefined): string | null {
  if (text === undefined) return null;
  if (!INCIDENT_ID.test(text))
    throw new ApiError(
      'INVALID_ARGUMENT',
      `incident '${quote(text)}': must be ${INCIDENT_ID_FORM}`,
      'incident',
    );
  return text;
}

export function registerLocalRoutes(
  app: FastifyInstance,
  store: Store,
  knowledge: OnCallKnowledge,
  rules: Omit<ReplayRouteOptions, 'now'>,
): void {
  /** The body as JSON, its ETag from its own bytes (see docs/decisions.md, "Local knowledge API"). */
  const answer: LocalAnswer = (request, reply, body, clockFields) => {
    const json = JSON.stringify(body);
    const tag = clockFields === undefined ? contentTag(json) : clockFreeTag(body, clockFields);
    return sendJson(store, request, reply, json, tag);
  };
  // The on-call layer's endpoints (docs/architecture.md#the-on-call-layer), each in its own file.
  registerUpcomingRoute(app, store, knowledge, answer);
  registerStatsRoute(app, store, knowledge, answer);
  registerHandoffRoute(app, store, knowledge, answer);
  registerReplayRoute(app, store, { ...rules, now: () => knowledge.now() }, answer);

  /**
   * One GET of this file: its schema (the OpenAPI document's summary and description with it); `read`
   * checks the request at once (a bad one is a 400 before the store is asked) and returns what reads
   * the store, run when the store is idle and answered with its ETag.
   */
  const get = <R extends RouteGenericInterface>(
    path: string,
    schema: FastifySchema,
    read: (request: FastifyRequest<R>) => () => object,
  ): void => {
    app.get(path, { schema }, async (request, reply) => {
      // Fastify checked the query and params against `schema`: R is what they are now.
      const body = read(request as FastifyRequest<R>);
      return store.whenReadable(() => answer(request, reply, body()));
    });
  };

  get<{ Querystring: IncidentsQuery }>(
    LOCAL_PATHS.incidents,
    {
      querystring: IncidentsQuery,
      response: LOCAL_RESPONSES.incidents,
      summary: "The org's incidents: live ones nobody acknowledged first, then newest first",
      description:
        'Failures of one cause whose failure times lie within the incident gap (default 6 h) of each other, across suppliers. Body: `{ incidents: Incident[], syncedAt }`.',
    },
    (request) => {
      const cause = request.query.cause === undefined ? null : canonicalCause(request.query.cause);
      const only = incidentParameter(request.query.incident);
      const includeDatasets = flag(request.query.includeDatasets, true);
      const includeEnded = only !== null || flag(request.query.includeEnded, false);
      return (): IncidentsBody => {
        const incidents = listIncidents(store, orgOf(request), { includeEnded }).filter(
          (incident) =>
            (cause === null || incident.causeId === cause) && (only === null || incident.incidentId === only),
        );
        return {
          incidents: includeDatasets ? incidents : incidents.map(withoutDatasets),
          syncedAt: syncedAt(store, request),
        };
      };
    },
  );

  get<{ Querystring: CausesQuery }>(
    LOCAL_PATHS.causes,
    {
      querystring: CausesQuery,
      response: LOCAL_RESPONSES.causes,
      summary: 'The live incidents, under their name before incidents (use /local/v1/incidents)',
      description:
        'The live incidents of /local/v1/incidents, each also with `firstSeenAt`/`lastSeenAt` (its first and last failure time). Body: `{ causes: Incident[], syncedAt }`.',
    },
    (request) => {
      const only = request.query.cause === undefined ? null : canonicalCause(request.query.cause);
      const includeDatasets = flag(request.query.includeDatasets, true);
      return (): CausesBody => ({
        causes: listIncidents(store, orgOf(request))
          .filter((incident) => only === null || incident.causeId === only)
          .map((incident) => ({
            ...(includeDatasets ? incident : withoutDatasets(incident)),
            firstSeenAt: incident.firstFailureAt,
            lastSeenAt: incident.lastFailureAt,
          })),
        syncedAt: syncedAt(store, request),
      });
    },
  );

  get<{ Querystring: AcknowledgementsQuery }>(
    LOCAL_PATHS.acknowledgements,
    {
      querystring: AcknowledgementsQuery,
      response: LOCAL_RESPONSES.acknowledgements,
      summary: "The org's acknowledgements",
      description:
        'Those that hold now (with includeEnded=true also those that ended), open ones first, each group newest first. Body: `{ acknowledgements: AcknowledgementView[] }`.',
    },
    (request) => {
      const { datasetId } = request.query;
      const cause = request.query.cause === undefined ? null : canonicalCause(request.query.cause, true);
      const includeEnded = flag(request.query.includeEnded, false);
      return (): AcknowledgementsBody => {
        const orgId = orgOf(request);
        let acknowledgements = listAcknowledgements(store, orgId, includeEnded);
        if (datasetId !== undefined)
          acknowledgements = acknowledgements.filter((a) => a.datasetId === datasetId);
        if (cause !== null) {
          // `cause` is a cause key or an incident id. Made for it: an acknowledgement with that id, or
          // with the id of one of its incidents; or of a failure that is in it now.
          const incidents = listIncidents(store, orgId, { includeEnded: true });
          const causeOf = new Map(incidents.map((incident) => [incident.incidentId, incident.causeId]));
          const current = new Set<string>();
          for (const found of incidents)
            if (found.causeId === cause || found.incidentId === cause)
              for (const dataset of found.datasets)
                current.add(`${dataset.datasetId}\n${dataset.deliveryId}`);
          acknowledgements = acknowledgements.filter(
            (a) =>
              a.causeId === cause ||
              (a.causeId !== null && causeOf.get(a.causeId) === cause) ||
              (a.endedAt === null && current.has(`${a.datasetId}\n${a.deliveryId}`)),
          );
        }
        return { acknowledgements };
      };
    },
  );

  get<{ Params: { datasetId: string }; Querystring: TimelineQuery }>(
    LOCAL_PATHS.timeline,
    {
      params: TimelineParams,
      querystring: TimelineQuery,
      response: LOCAL_RESPONSES.timeline,
      summary: "A dataset's timeline, newest first",
      description:
        'Status transitions the mirror saw, notifications and reminders raised, acknowledgements and their notes, and sync outages. Body: `{ datasetId, entries: TimelineEntry[] }`.',
    },
    (request) => {
      const limit = timelineLimit(request.query.limit);
      return (): TimelineBody => {
        const orgId = orgOf(request);
        const datasetId = resolveDatasetId(store, orgId, request.params.datasetId);
        if (datasetId === null) {
          throw new ApiError(
            'NOT_FOUND',
            `no dataset '${quote(request.params.datasetId)}' (by datasetId or legacyDatasetId)`,
          );
        }
        return { datasetId, entries: datasetTimeline(store, orgId, datasetId, limit) };
      };
    },
  );
}
