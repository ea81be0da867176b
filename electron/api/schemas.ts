/**
 * Request schemas of the three v2 endpoints. They validate requests, type the handlers and, with the
 * record schemas of shared/schemas.ts, generate the OpenAPI document (GET /v2/openapi.json).
 */
import Type, { type Static } from 'typebox';
import { DatasetRecord, ErrorBody, ListPage, TasksRecord } from '../../shared/schemas';
import { LOCAL_PARAMETER_RULES } from './localSchemas';

export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_DELIVERIES = 100;
export const DEFAULT_DELIVERIES = 10;

/** Limits that keep every request cheap to refuse (SQLite caps expression depth and pattern size). */
export const MAX_FILTERS = 50;
const MAX_FILTER_LENGTH = 2000;

/**
 * A non-negative integer written in digits. Kept a string in the schema: numeric coercion would also
 * accept `0x10`, `1e3` or ` 5`, which are not integers to a script author.
 */
const digits = (description: string) => Type.String({ pattern: '^[0-9]+$', description });

const LatestDeliveriesCount = digits(
  `Deliveries per dataset, newest first; default ${DEFAULT_DELIVERIES}, values above ${MAX_DELIVERIES} count as ${MAX_DELIVERIES}.`,
);
const IncludeRunDetails = Type.String({
  pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$',
  description: 'true, false, 1 or 0 (any case); default false.',
});

export const ListQuery = Type.Object({
  pageSize: Type.Optional(
    digits(
      `Items per page; default ${DEFAULT_PAGE_SIZE} (also for 0); values above ${MAX_PAGE_SIZE} count as ${MAX_PAGE_SIZE}.`,
    ),
  ),
  pageToken: Type.Optional(
    Type.String({ maxLength: 2000, description: 'nextPageToken or previousPageToken of an earlier page.' }),
  ),
  filter: Type.Optional(
    Type.Array(Type.String({ maxLength: MAX_FILTER_LENGTH }), {
      maxItems: MAX_FILTERS,
      description:
        '<field>.<operator>.<value>, repeatable (all are ANDed). `in` takes (a,b,"c,d"); like/ilike take * wildcards.',
    }),
  ),
  sort: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Comma-separated latestDeliveryStatus / latestDeliveryTimestamp, each optionally .asc or .desc.',
    }),
  ),
  latestDeliveriesCount: Type.Optional(LatestDeliveriesCount),
});
export type ListQuery = Static<typeof ListQuery>;

export const DatasetParams = Type.Object({ datasetId: Type.String() });
export const DatasetQuery = Type.Object({
  latestDeliveriesCount: Type.Optional(LatestDeliveriesCount),
  includeRunDetails: Type.Optional(IncludeRunDetails),
});
export type DatasetQuery = Static<typeof DatasetQuery>;

export const TasksParams = Type.Object({ deliveryId: Type.String() });
export const TasksQuery = Type.Object({ includeRunDetails: Type.Optional(IncludeRunDetails) });
export type TasksQuery = Static<typeof TasksQuery>;

const errors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  429: ErrorBody,
};

export const RESPONSES = {
  list: { 200: ListPage, ...errors },
  dataset: { 200: DatasetRecord, ...errors },
  tasks: { 200: TasksRecord, ...errors },
};

/** What each query parameter accepts, for 400 messages. */
export const PARAMETER_RULES: Record<string, string> = {
  pageSize: `pageSize must be an integer from 0 (0 means the default, ${DEFAULT_PAGE_SIZE}; above ${MAX_PAGE_SIZE} counts as ${MAX_PAGE_SIZE})`,
  latestDeliveriesCount: `latestDeliveriesCount must be an integer from 0 to ${MAX_DELIVERIES} (above ${MAX_DELIVERIES} counts as ${MAX_DELIVERIES})`,
  includeRunDetails: 'includeRunDetails must be true, false, 1 or 0',
  pageToken: 'pageToken must be given once, exactly as an earlier page returned it',
  sort: 'sort must be given once: comma-separated fields, e.g. sort=latestDeliveryStatus,latestDeliveryTimestamp.desc',
  filter: `filter must be <field>.<operator>.<value>, at most ${MAX_FILTERS} of them, each at most ${MAX_FILTER_LENGTH} characters`,
  ...LOCAL_PARAMETER_RULES,
};

export function parseBoolean(value: string | undefined): boolean {
  return value !== undefined && (value === '1' || value.toLowerCase() === 'true');
}
