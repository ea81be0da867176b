/**
 * The read-only `/local/v1` endpoints (DESIGN.md §11): what only the mirror knows — causes,
 * acknowledgements and each dataset's timeline — for scripts, with the v2 endpoints' keys, org scoping,
 * errors and caching headers (they are registered beside them, behind the same hooks). Nothing here
 * writes: acknowledging is done from the window or the CLI.
 */
import type { FastifyInstance } from 'fastify';
import { type Cause, causeIdOf, parseCauseId } from '../../shared/causes';
import { TIMELINE_LIMIT } from '../../shared/timeline';
import { listCauses } from '../query/causes';
import { resolveDatasetId } from '../query/dataset';
import { listAcknowledgements } from '../store/acknowledgements';
import type { Store } from '../store/database';
import type { OnCallKnowledge } from '../knowledge/service';
import { UPCOMING_PATH, registerUpcomingRoute } from './localUpcoming';
import { STATS_PATH, registerStatsRoute } from './localStats';
import { HANDOFF_PATH, registerHandoffRoute } from './localHandoff';
import { datasetTimeline } from '../store/timeline';
import { ApiError, quote } from './errors';
import {
  AcknowledgementsQuery,
  CausesQuery,
  DEFAULT_TIMELINE_ENTRIES,
  LOCAL_PARAMETER_RULES,
  LOCAL_RESPONSES,
  type LocalAnswer,
  TimelineParams,
  TimelineQuery,
  flag,
  type AcknowledgementsBody,
  type CausesBody,
  type TimelineBody,
} from './localSchemas';
import { clockFreeTag, contentTag, orgOf, sendJson, syncedAt } from './versioning';

export const LOCAL_PATHS = {
  causes: '/local/v1/causes',
  acknowledgements: '/local/v1/acknowledgements',
  timeline: '/local/v1/datasets/:datasetId/timeline',
  upcoming: UPCOMING_PATH,
  stats: STATS_PATH,
  handoff: HANDOFF_PATH,
} as const;

/** The cause id in its canonical spelling; bad syntax is a 400 naming `cause` and the allowed forms. */
function canonicalCause(text: string): string {
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

const withoutDatasets = ({ datasets: _datasets, ...cause }: Cause): Omit<Cause, 'datasets'> => cause;

export function registerLocalRoutes(app: FastifyInstance, store: Store, knowledge: OnCallKnowledge): void {
  /** The body as JSON, its ETag from its own bytes (see docs/decisions.md, "Local knowledge API"). */
  const answer: LocalAnswer = (request, reply, body, clockFields) => {
    const json = JSON.stringify(body);
    const tag = clockFields === undefined ? contentTag(json) : clockFreeTag(body, clockFields);
    return sendJson(store, request, reply, json, tag);
  };
  // The on-call layer's endpoints (§11), each in its own file.
  registerUpcomingRoute(app, store, knowledge, answer);
  registerStatsRoute(app, store, knowledge, answer);
  registerHandoffRoute(app, store, knowledge, answer);

  app.get<{ Querystring: CausesQuery }>(
    LOCAL_PATHS.causes,
    {
      schema: {
        querystring: CausesQuery,
        response: LOCAL_RESPONSES.causes,
        summary: "The org's current causes of failure, worst first",
        description:
          'FAILED datasets grouped by (first failed stage, shortCode), MISSING ones by supplier, FAILED ones whose tasks are not stored yet as `unknown`. Body: `{ causes: Cause[], syncedAt }`.',
      },
    },
    async (request, reply) => {
      const only = request.query.cause === undefined ? null : canonicalCause(request.query.cause);
      const includeDatasets = flag(request.query.includeDatasets, true);
      return store.whenIdle(() => {
        const causes = listCauses(store, orgOf(request)).filter(
          (cause) => only === null || cause.causeId === only,
        );
        const body: CausesBody = {
          causes: includeDatasets ? causes : causes.map(withoutDatasets),
          syncedAt: syncedAt(store, request),
        };
        return answer(request, reply, body);
      });
    },
  );

  app.get<{ Querystring: AcknowledgementsQuery }>(
    LOCAL_PATHS.acknowledgements,
    {
      schema: {
        querystring: AcknowledgementsQuery,
        response: LOCAL_RESPONSES.acknowledgements,
        summary: "The org's acknowledgements",
        description:
          'Those that hold now (with includeEnded=true also those that ended), open ones first, each group newest first. Body: `{ acknowledgements: AcknowledgementView[] }`.',
      },
    },
    async (request, reply) => {
      const { datasetId } = request.query;
      const cause = request.query.cause === undefined ? null : canonicalCause(request.query.cause);
      const includeEnded = flag(request.query.includeEnded, false);
      return store.whenIdle(() => {
        const orgId = orgOf(request);
        let acknowledgements = listAcknowledgements(store, orgId, includeEnded);
        if (datasetId !== undefined)
          acknowledgements = acknowledgements.filter((a) => a.datasetId === datasetId);
        if (cause !== null) {
          // The failures that put their datasets in this cause now, with the delivery that failed.
          const current = new Set<string>();
          for (const found of listCauses(store, orgId))
            if (found.causeId === cause)
              for (const dataset of found.datasets)
                current.add(`${dataset.datasetId}\n${dataset.deliveryId}`);
          acknowledgements = acknowledgements.filter(
            (a) =>
              a.causeId === cause || (a.endedAt === null && current.has(`${a.datasetId}\n${a.deliveryId}`)),
          );
        }
        const body: AcknowledgementsBody = { acknowledgements };
        return answer(request, reply, body);
      });
    },
  );

  app.get<{ Params: { datasetId: string }; Querystring: TimelineQuery }>(
    LOCAL_PATHS.timeline,
    {
      schema: {
        params: TimelineParams,
        querystring: TimelineQuery,
        response: LOCAL_RESPONSES.timeline,
        summary: "A dataset's timeline, newest first",
        description:
          'Status transitions the mirror saw, notifications and reminders raised, acknowledgements and their notes, and sync outages. Body: `{ datasetId, entries: TimelineEntry[] }`.',
      },
    },
    async (request, reply) => {
      const limit = timelineLimit(request.query.limit);
      return store.whenIdle(() => {
        const orgId = orgOf(request);
        const datasetId = resolveDatasetId(store, orgId, request.params.datasetId);
        if (datasetId === null) {
          throw new ApiError(
            'NOT_FOUND',
            `no dataset '${quote(request.params.datasetId)}' (by datasetId or legacyDatasetId)`,
          );
        }
        const body: TimelineBody = { datasetId, entries: datasetTimeline(store, orgId, datasetId, limit) };
        return answer(request, reply, body);
      });
    },
  );
}
