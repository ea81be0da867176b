/** The three read-only v2 endpoints (docs/api.md), answering from the store through the query layer. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getDataset } from '../query/dataset';
import { listDatasets } from '../query/list';
import { parseSelection } from '../query/selection';
import { type TasksReadThrough, readDeliveryTasks } from '../query/tasks';
import type { Store } from '../store/database';
import { ApiError, quote } from './errors';
import {
  DEFAULT_DELIVERIES,
  DEFAULT_PAGE_SIZE,
  DatasetParams,
  DatasetQuery,
  ListQuery,
  MAX_DELIVERIES,
  MAX_PAGE_SIZE,
  RESPONSES,
  TasksParams,
  TasksQuery,
  parseBoolean,
} from './schemas';
import { hashText, orgOf, sendJson } from './versioning';

export const V2_PATHS = {
  list: '/v2/ops/health/datasets/deliveries',
  dataset: '/v2/ops/health/datasets/:datasetId/deliveries',
  tasks: '/v2/ops/health/deliveries/:deliveryId/tasks',
} as const;

export interface RouteOptions {
  store: Store;
  readThrough?: TasksReadThrough;
}

/** Integer parameters arrive as digit strings (the schema refuses signs, hex, exponents and spaces). */
const integer = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : Number(value);

const deliveriesCount = (value: string | undefined): number =>
  Math.min(integer(value) ?? DEFAULT_DELIVERIES, MAX_DELIVERIES);

/** The ETag is the data revision and the request: a change to the store renews it. */
function sendVersioned(
  store: Store,
  request: FastifyRequest,
  reply: FastifyReply,
  json: string | Buffer,
): FastifyReply {
  const tag = `"${store.dataRevision}-${hashText(`${orgOf(request)} ${request.url}`)}"`;
  return sendJson(store, request, reply, json, tag);
}

export function registerRoutes(app: FastifyInstance, options: RouteOptions): void {
  const { store } = options;

  app.get<{ Querystring: ListQuery }>(
    V2_PATHS.list,
    { schema: { querystring: ListQuery, response: RESPONSES.list, summary: 'List dataset health' } },
    async (request, reply) => {
      const query = request.query;
      // Parsed once, here; a bad filter or sort is the query layer's InvalidArgument, answered as 400.
      const selection = parseSelection({
        orgId: orgOf(request),
        filters: query.filter ?? [],
        sort: query.sort ?? '',
      });
      const requestedSize = integer(query.pageSize);
      const pageSize = requestedSize ? Math.min(requestedSize, MAX_PAGE_SIZE) : DEFAULT_PAGE_SIZE;
      // whenReadable: a sync commit in progress is not visible until it is whole; an export is no wait.
      return store.whenReadable(() => {
        const body = listDatasets(store, {
          ...selection,
          pageSize,
          pageToken: query.pageToken || null,
          latestDeliveriesCount: deliveriesCount(query.latestDeliveriesCount),
        });
        return sendVersioned(store, request, reply, body);
      });
    },
  );

  app.get<{ Params: { datasetId: string }; Querystring: DatasetQuery }>(
    V2_PATHS.dataset,
    {
      schema: {
        params: DatasetParams,
        querystring: DatasetQuery,
        response: RESPONSES.dataset,
        summary: 'Get dataset health by dataset identifier (or legacyDatasetId)',
      },
    },
    async (request, reply) =>
      store.whenReadable(() => {
        const json = getDataset(store, {
          orgId: orgOf(request),
          datasetId: request.params.datasetId,
          latestDeliveriesCount: deliveriesCount(request.query.latestDeliveriesCount),
          includeRunDetails: parseBoolean(request.query.includeRunDetails),
        });
        if (json === null) {
          throw new ApiError(
            'NOT_FOUND',
            `no dataset '${quote(request.params.datasetId)}' (by datasetId or legacyDatasetId)`,
          );
        }
        return sendVersioned(store, request, reply, json);
      }),
  );

  app.get<{ Params: { deliveryId: string }; Querystring: TasksQuery }>(
    V2_PATHS.tasks,
    {
      schema: {
        params: TasksParams,
        querystring: TasksQuery,
        response: RESPONSES.tasks,
        summary: 'Get the tasks of one delivery, grouped by stage',
      },
    },
    async (request, reply) => {
      const { deliveryId } = request.params;
      const tasksRequest = {
        orgId: orgOf(request),
        deliveryId,
        includeRunDetails: parseBoolean(request.query.includeRunDetails),
      };
      return readDeliveryTasks(store, tasksRequest, options.readThrough, (result) => {
        if (!result.found) {
          throw new ApiError(
            'NOT_FOUND',
            result.reason === 'unknown-delivery'
              ? `no delivery '${quote(deliveryId)}'`
              : `the tasks of delivery '${quote(deliveryId)}' were never synced and the remote could not be reached`,
          );
        }
        return sendVersioned(store, request, reply, result.json);
      });
    },
  );
}
