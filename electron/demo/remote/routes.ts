/**
 * The three v2 endpoints of the simulated remote, at the spec's paths. Answers carry no response
 * schema on purpose: Fastify would serialize through it and drop the unknown fields that
 * `extraFields` adds to test a client's tolerance.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { quoteForMessage } from '../../../shared/filter';
import type { DatasetRecord, TasksRecord } from '../../../shared/schemas';
import type { SimClock } from './clock';
import { SimError } from './errors';
import type { Fault } from './faults';
import { listDatasets } from './listing';
import type { SimulatedOrg } from './org';
import { decodePageToken, encodePageToken, queryFingerprint } from './pageToken';
import {
  DatasetQuery,
  ListQuery,
  TasksQuery,
  booleanOf,
  deliveriesCountOf,
  filtersAndSortOf,
  pageSizeOf,
} from './params';

export const SIM_PATHS = {
  list: '/v2/ops/health/datasets/deliveries',
  dataset: '/v2/ops/health/datasets/:datasetId/deliveries',
  tasks: '/v2/ops/health/deliveries/:deliveryId/tasks',
} as const;

export interface RouteContext {
  org: SimulatedOrg;
  clock: SimClock;
  maxPageSize: number;
  rejectFilter: boolean;
  extraFields: boolean;
  /** The fault the request drew that changes the body (repeat-token, drop-dataset-id), if any. */
  bodyFault(request: FastifyRequest): Fault | undefined;
}

/** The unknown field `extraFields` adds, as a newer service version might. */
const EXTRA = { 'x-sim': 1 } as const;

function extendRecord(record: DatasetRecord): DatasetRecord {
  return {
    ...record,
    ...EXTRA,
    deliveryEventList: record.deliveryEventList.map((event) => ({ ...event, ...EXTRA })),
  };
}

function extendTasks(tasks: TasksRecord): TasksRecord {
  const group = <G extends TasksRecord[keyof TasksRecord]>(g: G): G => ({
    ...g,
    ...EXTRA,
    tasks: g.tasks.map((task) => ({ ...task, ...EXTRA })),
  });
  return {
    ...EXTRA,
    ingest: group(tasks.ingest),
    normalize: group(tasks.normalize),
    process: group(tasks.process),
    dispatch: group(tasks.dispatch),
  };
}

function dropDatasetId(record: DatasetRecord): DatasetRecord {
  const { datasetId: _datasetId, ...rest } = record;
  return rest as DatasetRecord;
}

export function registerSimRoutes(app: FastifyInstance, context: RouteContext): void {
  const { org, clock } = context;

  app.get<{ Querystring: ListQuery }>(
    SIM_PATHS.list,
    { schema: { querystring: ListQuery } },
    async (request) => {
      const query = request.query;
      const filterTexts = query.filter ?? [];
      if (context.rejectFilter && filterTexts.length > 0) {
        throw new SimError(
          400,
          'filter is not supported by this service: list without it and filter the records yourself',
          'filter',
        );
      }
      const parsed = filtersAndSortOf(filterTexts, query.sort);
      const pageSize = pageSizeOf(query.pageSize, context.maxPageSize);
      const fingerprint = queryFingerprint(org.orgId, parsed.filterTexts, parsed.sortText);
      const token = query.pageToken || null;
      const result = listDatasets(org, {
        filters: parsed.filters,
        pageSize,
        position: token === null ? null : decodePageToken(token, fingerprint, org.size),
        latestDeliveriesCount: deliveriesCountOf(query.latestDeliveriesCount, org.historyDepth),
        nowMs: clock.now(),
      });
      const fault = context.bodyFault(request);
      let items = context.extraFields ? result.items.map(extendRecord) : result.items;
      if (fault?.kind === 'drop-dataset-id' && items.length > 0)
        items = [dropDatasetId(items[0]!), ...items.slice(1)];
      let nextPageToken = result.next === null ? '' : encodePageToken(fingerprint, result.next);
      if (fault?.kind === 'repeat-token' && token !== null) nextPageToken = token;
      return {
        items,
        nextPageToken,
        previousPageToken: result.previous === null ? '' : encodePageToken(fingerprint, result.previous),
        kind: 'ops#datasetHealthList',
      };
    },
  );

  app.get<{ Params: { datasetId: string }; Querystring: DatasetQuery }>(
    SIM_PATHS.dataset,
    { schema: { querystring: DatasetQuery } },
    async (request) => {
      const { datasetId } = request.params;
      const index = org.findDataset(datasetId);
      if (index === undefined)
        throw new SimError(404, `no dataset ${quoteForMessage(datasetId)} (by datasetId or legacyDatasetId)`);
      let record = org.record(
        index,
        clock.now(),
        deliveriesCountOf(request.query.latestDeliveriesCount, org.historyDepth),
        booleanOf(request.query.includeRunDetails),
      );
      if (context.extraFields) record = extendRecord(record);
      if (context.bodyFault(request)?.kind === 'drop-dataset-id') record = dropDatasetId(record);
      return record;
    },
  );

  app.get<{ Params: { deliveryId: string }; Querystring: TasksQuery }>(
    SIM_PATHS.tasks,
    { schema: { querystring: TasksQuery } },
    async (request) => {
      const { deliveryId } = request.params;
      const tasks = org.tasks(deliveryId, clock.now(), booleanOf(request.query.includeRunDetails));
      if (tasks === undefined) throw new SimError(404, `no delivery ${quoteForMessage(deliveryId)}`);
      return context.extraFields ? extendTasks(tasks) : tasks;
    },
  );
}
