/**
 * The list endpoint over a live org: filter, keyset paging in dataset index order, then full records
 * for the page only. Index order is fixed while statuses change with time, so walking the pages
 * visits every dataset that matches throughout exactly once, however fast the clock runs. Filters on
 * the fixed fields cost nothing; `deliveryStatus` and `deliveryId` derive only the newest attempts
 * (`SimulatedOrg.latest`), so filtering a 10k-dataset org stays well under the budget of a page.
 */
import type { Filter } from '../../../shared/filter';
import type { DatasetRecord } from '../../../shared/schemas';
import { type FilterableRecord, compileFilters } from './match';
import type { LatestDelivery, SimulatedOrg } from './org';
import type { PagePosition } from './pageToken';

export interface ListRequest {
  filters: readonly Filter[];
  pageSize: number;
  /** Where the page starts; null for the first page. */
  position: PagePosition | null;
  latestDeliveriesCount: number;
  nowMs: number;
}

export interface ListResult {
  items: DatasetRecord[];
  /** The positions of the neighbouring pages, null when there is no such page. */
  next: PagePosition | null;
  previous: PagePosition | null;
}

/** A dataset as the filters see it, deriving its latest delivery only if a filter asks. */
function liveView(org: SimulatedOrg, index: number, nowMs: number): FilterableRecord {
  const plan = org.plan(index);
  let latest: LatestDelivery | undefined;
  const read = (): LatestDelivery => (latest ??= org.latest(index, nowMs));
  return {
    legacyDatasetId: plan.legacyDatasetId,
    datasetId: plan.datasetId,
    datasetName: plan.datasetName,
    dataProductName: plan.dataProductName,
    supplier: plan.supplier,
    get latestDeliveryStatus() {
      return read().status;
    },
    get deliveryId() {
      return read().deliveryId;
    },
  };
}

export function listDatasets(org: SimulatedOrg, request: ListRequest): ListResult {
  const { pageSize, position, nowMs } = request;
  const test = request.filters.length === 0 ? null : compileFilters(request.filters);
  const matches = (index: number): boolean =>
    org.isVisible(index) && (test === null || test(liveView(org, index, nowMs)));
  /** Up to `limit` matching indexes from `from` upwards (ascending). */
  const forward = (from: number, limit: number): number[] => {
    const found: number[] = [];
    for (let i = Math.max(0, from); i < org.size && found.length < limit; i++) if (matches(i)) found.push(i);
    return found;
  };
  /** Up to `limit` matching indexes from `from` downwards, returned ascending. */
  const backward = (from: number, limit: number): number[] => {
    const found: number[] = [];
    for (let i = Math.min(from, org.size - 1); i >= 0 && found.length < limit; i--)
      if (matches(i)) found.push(i);
    return found.reverse();
  };

  // Tokens name the last item shown (next) or the first (previous); an empty page names its edge.
  let indexes: number[];
  let next: PagePosition | null;
  let previous: PagePosition | null;
  if (position === null || position.direction === 'next') {
    const after = position?.index ?? -1;
    const found = forward(after + 1, pageSize + 1);
    indexes = found.slice(0, pageSize);
    next = found.length > pageSize ? { direction: 'next', index: indexes[indexes.length - 1]! } : null;
    previous =
      after >= 0 && backward(after, 1).length > 0
        ? { direction: 'previous', index: indexes[0] ?? after + 1 }
        : null;
  } else {
    const before = position.index;
    const found = backward(before - 1, pageSize + 1);
    indexes = found.slice(Math.max(0, found.length - pageSize));
    previous = found.length > pageSize ? { direction: 'previous', index: indexes[0]! } : null;
    next =
      forward(before, 1).length > 0
        ? { direction: 'next', index: indexes[indexes.length - 1] ?? before - 1 }
        : null;
  }
  return {
    items: indexes.map((index) => org.record(index, nowMs, request.latestDeliveriesCount)),
    next,
    previous,
  };
}
