/**
 * The datasets view's whole state as URL query parameters, so a reload or a shared link shows the same
 * rows: `status` (chips, comma-separated), `f` (each other filter, in the v2 grammar), `q` (free text)
 * and `sort` (a v2 sort text). Defaults are left out of the URL.
 */
import type { LocationQuery, LocationQueryRaw } from 'vue-router';
import type { DatasetQuery } from '../../../shared/rpc';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../../shared/status';

/** Worst first: what an on-call engineer looks at first. */
export const DEFAULT_SORT = 'latestDeliveryStatus.asc';

export interface DatasetsViewState {
  statuses: DeliveryStatus[];
  filters: string[];
  search: string;
  sort: string;
}

const list = (value: LocationQuery[string] | undefined): string[] =>
  (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string');

export function viewStateFromQuery(query: LocationQuery): DatasetsViewState {
  const listed = new Set(list(query.status).flatMap((text) => text.split(',')));
  return {
    // In contract order, whatever order a link lists them in: one view state, one filter text.
    statuses: DELIVERY_STATUSES.filter((status) => listed.has(status)),
    filters: list(query.f).filter((text) => text !== ''),
    search: list(query.q)[0] ?? '',
    sort: list(query.sort)[0] ?? DEFAULT_SORT,
  };
}

export function viewStateToQuery(state: DatasetsViewState): LocationQueryRaw {
  const query: LocationQueryRaw = {};
  if (state.statuses.length > 0) query.status = state.statuses.join(',');
  if (state.filters.length > 0) query.f = [...state.filters];
  if (state.search !== '') query.q = state.search;
  if (state.sort !== DEFAULT_SORT) query.sort = state.sort;
  return query;
}

/** The engine's query for the view: the chips become one `deliveryStatus.in` filter. */
export function toDatasetQuery(orgId: string, state: DatasetsViewState): DatasetQuery {
  const chips = state.statuses.length > 0 ? [`deliveryStatus.in.(${state.statuses.join(',')})`] : [];
  return { orgId, filters: [...chips, ...state.filters], search: state.search, sort: state.sort };
}
