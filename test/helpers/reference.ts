/**
 * An independent, deliberately naive model of the list contract (docs/api.md#list) — filter, sort and
 * tie-break over plain records — that the SQL implementation is checked against.
 */
import type { Filter } from '../../shared/filter';
import { matches } from '../../electron/demo/remote/match';
import type { DatasetRecord } from '../../shared/schemas';
import type { SortKey } from '../../shared/sort';

// The naive filter semantics live in the remote simulator, which evaluates filters over records too.
export { matches };

/** Unicode code point order (SQLite BINARY on UTF-8), not JavaScript's UTF-16 unit order. */
export function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

const ORDER = ['FAILED', 'MISSING', 'DELIVERED_LATE', 'HEALTHY'];

function compareKey(a: DatasetRecord, b: DatasetRecord, key: SortKey): number {
  const pick = (r: DatasetRecord): number | null => {
    if (key.field === 'latestDeliveryStatus') {
      const s = r.latestDeliveryStatus;
      if (s === null || s === '') return null;
      return ORDER.includes(s) ? ORDER.indexOf(s) : ORDER.length;
    }
    return r.latestDeliveryTimestamp === null ? null : Date.parse(r.latestDeliveryTimestamp);
  };
  const x = pick(a);
  const y = pick(b);
  if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1; // empty last, both directions
  return key.direction === 'asc' ? x - y : y - x;
}

export function compare(a: DatasetRecord, b: DatasetRecord, sort: readonly SortKey[]): number {
  for (const key of sort) {
    const d = compareKey(a, b, key);
    if (d !== 0) return d;
  }
  return byCodePoint(a.datasetName ?? '', b.datasetName ?? '') || byCodePoint(a.datasetId, b.datasetId);
}

export function expectedIds(
  records: readonly DatasetRecord[],
  filters: readonly Filter[],
  sort: readonly SortKey[],
): string[] {
  return records
    .filter((r) => filters.every((f) => matches(r, f)))
    .sort((a, b) => compare(a, b, sort))
    .map((r) => r.datasetId);
}
