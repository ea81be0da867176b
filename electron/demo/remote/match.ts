/**
 * The list filters (docs/api.md#list) over plain records, as a remote service without SQL would
 * evaluate them. Records here may be cheap views that derive `latestDeliveryStatus` and `deliveryId`
 * only when asked, so compiled filters test the fixed fields first.
 */
import { type Filter, type FilterField, likeToMatcher } from '../../../shared/filter';

/** The fields the filters read: a whole `DatasetRecord` is one. */
export interface FilterableRecord {
  legacyDatasetId: string | null;
  datasetId: string;
  datasetName: string | null;
  dataProductName: string | null;
  supplier: { id: string | null };
  latestDeliveryStatus: string | null;
  deliveryId: string | null;
}

/** The record field behind a filter field (`deliveryStatus` → `latestDeliveryStatus`, …). */
export function filterValue(record: FilterableRecord, field: FilterField): string | null {
  switch (field) {
    case 'deliveryStatus':
      return record.latestDeliveryStatus;
    case 'dataProduct':
      return record.dataProductName;
    case 'supplierId':
      return record.supplier.id;
    default:
      return record[field];
  }
}

/** One filter, naively: empty and null fields count as "" (so `neq` matches them). */
export function matches(record: FilterableRecord, filter: Filter): boolean {
  const value = filterValue(record, filter.field) ?? '';
  switch (filter.op) {
    case 'eq':
      return value === filter.value;
    case 'neq':
      return value !== filter.value;
    case 'in':
      return filter.values.includes(value);
    case 'like':
      return likeToMatcher(filter.value, false)(value);
    case 'ilike':
      return likeToMatcher(filter.value, true)(value);
  }
}

/** Fields that cost a derivation on a live view, tested after the others. */
const DERIVED: ReadonlySet<FilterField> = new Set(['deliveryStatus', 'deliveryId']);

/** All filters ANDed, compiled once per request (patterns and lists prepared up front). */
export function compileFilters(filters: readonly Filter[]): (record: FilterableRecord) => boolean {
  const tests = [...filters]
    .sort((a, b) => Number(DERIVED.has(a.field)) - Number(DERIVED.has(b.field)))
    .map((filter): ((record: FilterableRecord) => boolean) => {
      const read = (record: FilterableRecord) => filterValue(record, filter.field) ?? '';
      switch (filter.op) {
        case 'eq':
          return (record) => read(record) === filter.value;
        case 'neq':
          return (record) => read(record) !== filter.value;
        case 'in': {
          const values = new Set(filter.values);
          return (record) => values.has(read(record));
        }
        case 'like':
        case 'ilike': {
          const test = likeToMatcher(filter.value, filter.op === 'ilike');
          return (record) => test(read(record));
        }
      }
    });
  return (record) => tests.every((test) => test(record));
}
