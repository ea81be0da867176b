/**
 * Sort keys stored on each dataset row. Each sort field and direction has its own integer column whose
 * ascending order is the contract's order (docs/api.md): statuses FAILED, MISSING, DELIVERED_LATE,
 * HEALTHY, then other values; timestamps oldest first; empty values last in both directions. With every
 * key ascending, a page is an index range scan and a page token is a plain row-value comparison.
 */
import { SORT_FIELDS, type SortKey } from '../../../shared/sort';
import { DELIVERY_STATUSES, statusRank } from '../../../shared/status';

/** Larger than any epoch-millisecond value a datetime can hold: empty timestamps sort last. */
export const EMPTY_TIME_KEY = 9e15;
const EMPTY_STATUS_KEY = DELIVERY_STATUSES.length + 1;

export type SortColumn = 'k_status_asc' | 'k_status_desc' | 'k_ts_asc' | 'k_ts_desc';

export function sortColumn(key: SortKey): SortColumn {
  const field = key.field === 'latestDeliveryStatus' ? 'status' : 'ts';
  return `k_${field}_${key.direction}`;
}

export interface SortKeyValues {
  k_status_asc: number;
  k_status_desc: number;
  k_ts_asc: number;
  k_ts_desc: number;
}

export function sortKeyValues(status: string | null, latestTimestamp: string | null): SortKeyValues {
  const hasStatus = status !== null && status !== '';
  const rank = hasStatus ? statusRank(status) : 0;
  const ms = latestTimestamp === null ? Number.NaN : Date.parse(latestTimestamp);
  const hasTime = Number.isFinite(ms);
  return {
    k_status_asc: hasStatus ? rank : EMPTY_STATUS_KEY,
    k_status_desc: hasStatus ? DELIVERY_STATUSES.length - rank : EMPTY_STATUS_KEY,
    k_ts_asc: hasTime ? ms : EMPTY_TIME_KEY,
    k_ts_desc: hasTime ? -ms : EMPTY_TIME_KEY,
  };
}

/** Every accepted ordering of distinct sort fields with their directions: 4 single + 8 double keys. */
function allSortColumnLists(): SortColumn[][] {
  const directions = ['asc', 'desc'] as const;
  const singles: SortKey[][] = SORT_FIELDS.flatMap((field) =>
    directions.map((direction) => [{ field, direction }]),
  );
  const doubles: SortKey[][] = singles.flatMap(([first]) =>
    singles.filter(([second]) => second!.field !== first!.field).map(([second]) => [first!, second!]),
  );
  return [...singles, ...doubles].map((keys) => keys.map(sortColumn));
}

export const SORT_INDEXES: readonly { name: string; columns: readonly SortColumn[] }[] = [
  { name: 'datasets_by_name', columns: [] },
  ...allSortColumnLists().map((columns) => ({ name: `datasets_by_${columns.join('_')}`, columns })),
];
