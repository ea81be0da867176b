/**
 * The datasets view's whole state as URL query parameters, so a reload or a shared link shows the same
 * rows: `status` (chips, comma-separated), `f` (each other filter, in the v2 grammar), `q` (free text),
 * `sort` (a v2 sort text), `cause` (a cause id, docs/architecture.md#incidents) and `unack=1` (unacknowledged only).
 * Defaults are left out of the URL.
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
  /** Only the datasets of this cause id (`ingest:E_AUTH_FAILED`, `missing:SUP-1`, `unknown`). */
  cause: string | null;
  /** Only FAILED and MISSING datasets nobody acknowledged. */
  unacknowledged: boolean;
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
    cause: list(query.cause).find((text) => text !== '') ?? null,
    unacknowledged: list(query.unack)[0] === '1',
  };
}

export function viewStateToQuery(state: DatasetsViewState): LocationQueryRaw {
  const query: LocationQueryRaw = {};
  if (state.statuses.length > 0) query.status = state.statuses.join(',');
  if (state.filters.length > 0) query.f = [...state.filters];
  if (state.search !== '') query.q = state.search;
  if (state.sort !== DEFAULT_SORT) query.sort = state.sort;
  if (state.cause !== null && state.cause !== '') query.cause = state.cause;
  if (state.unacknowledged) query.unack = '1';
  return query;
}

/**
 * The engine's query for the view: the chips become one `deliveryStatus.in` filter; the triage filters
 * are there only when set.
 */
export function toDatasetQuery(orgId: string, state: DatasetsViewState): DatasetQuery {
  const chips = state.statuses.length > 0 ? [`deliveryStatus.in.(${state.statuses.join(',')})`] : [];
  return {
    orgId,
    filters: [...chips, ...state.filters],
    search: state.search,
    sort: state.sort,
    ...(state.cause !== null && state.cause !== '' ? { cause: state.cause } : {}),
    ...(state.unacknowledged ? { unacknowledged: true } : {}),
  };
}

/** Whether the view narrows the org's datasets in any way (for "3 of 500" and the empty state). */
export function isFiltered(state: DatasetsViewState): boolean {
  return (
    state.statuses.length > 0 ||
    state.filters.length > 0 ||
    state.search !== '' ||
    state.cause !== null ||
    state.unacknowledged
  );
}
