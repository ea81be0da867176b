/**
 * Query parameters of the simulated remote. TypeBox schemas check their form (Fastify validates
 * requests with them); the functions here apply the limits that depend on the simulator's options.
 */
import Type, { type Static } from 'typebox';
import { FilterError, type Filter, parseFilter, printFilter } from '../../../shared/filter';
import { SortError, parseSort, printSort } from '../../../shared/sort';
import { SimError } from './errors';

export const DEFAULT_PAGE_SIZE = 50;
export const DEFAULT_MAX_PAGE_SIZE = 1000;
export const DEFAULT_DELIVERIES = 10;

/** Digits only: numeric coercion would also take `0x10`, `1e3` or ` 5`. */
const digits = Type.String({ pattern: '^[0-9]+$' });
const boolean = Type.String({ pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$' });

export const ListQuery = Type.Object({
  pageSize: Type.Optional(digits),
  pageToken: Type.Optional(Type.String()),
  filter: Type.Optional(Type.Array(Type.String())),
  sort: Type.Optional(Type.String()),
  latestDeliveriesCount: Type.Optional(digits),
});
export type ListQuery = Static<typeof ListQuery>;

export const DatasetQuery = Type.Object({
  latestDeliveriesCount: Type.Optional(digits),
  includeRunDetails: Type.Optional(boolean),
});
export type DatasetQuery = Static<typeof DatasetQuery>;

export const TasksQuery = Type.Object({ includeRunDetails: Type.Optional(boolean) });
export type TasksQuery = Static<typeof TasksQuery>;

/** What each parameter takes, for the 400 a malformed one gets. */
export const PARAMETER_RULES: Record<string, string> = {
  pageSize: 'pageSize must be a non-negative integer (0 means the default, 50)',
  latestDeliveriesCount: 'latestDeliveriesCount must be a non-negative integer',
  includeRunDetails: 'includeRunDetails must be true, false, 1 or 0',
  filter: 'filter must be <field>.<operator>.<value>',
  pageToken: 'pageToken must be a nextPageToken or previousPageToken of an earlier page',
  sort: 'sort must be comma-separated latestDeliveryStatus / latestDeliveryTimestamp, each optionally .asc or .desc',
};

/** Unlike the local API, which clamps, the remote refuses pages above its maximum. */
export function pageSizeOf(value: string | undefined, maxPageSize: number): number {
  const size = value === undefined ? 0 : Number(value);
  if (size > maxPageSize)
    throw new SimError(400, `pageSize ${value} is above the maximum of ${maxPageSize}`, 'pageSize');
  return size === 0 ? DEFAULT_PAGE_SIZE : size;
}

/** Events per record: default 10, at most the org's history depth. */
export function deliveriesCountOf(value: string | undefined, historyDepth: number): number {
  return Math.min(value === undefined ? DEFAULT_DELIVERIES : Number(value), historyDepth);
}

export function booleanOf(value: string | undefined): boolean {
  return value !== undefined && (value === '1' || value.toLowerCase() === 'true');
}

export interface ParsedQuery {
  filters: Filter[];
  /** Canonical texts, for binding page tokens to the query. */
  filterTexts: string[];
  sortText: string;
}

/**
 * Filters and sort, checked. The sort is validated and binds page tokens but does not reorder: the
 * simulator lists in dataset index order so keyset paging stays exact while statuses change under
 * a running clock (a client that mirrors a whole org must not depend on the remote's order).
 */
export function filtersAndSortOf(filterTexts: readonly string[], sortText: string | undefined): ParsedQuery {
  const filters = filterTexts.map((text) => {
    try {
      return parseFilter(text);
    } catch (error) {
      if (error instanceof FilterError) throw new SimError(400, error.message, 'filter');
      throw error;
    }
  });
  try {
    const sort = parseSort(sortText ?? '');
    return { filters, filterTexts: filters.map(printFilter), sortText: printSort(sort) };
  } catch (error) {
    if (error instanceof SortError) throw new SimError(400, error.message, 'sort');
    throw error;
  }
}
