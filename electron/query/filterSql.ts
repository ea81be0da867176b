/**
 * Filters (shared/filter.ts) as SQL over the datasets table `d`. Semantics (docs/api.md#list): eq and in
 * match exactly; neq is the exact complement of eq, so it also matches empty/null fields; an empty
 * value matches empty or null fields; like/ilike treat `*` as "any run" and every other character as
 * literal. Patterns run as GLOB, whose `*` never backtracks exponentially in SQLite (at worst pattern ×
 * text); the characters GLOB would treat specially (`?`, `[`) are bracketed to stay literal.
 */
import type { Filter, FilterField } from '../../shared/filter';
import { UNACKNOWLEDGED_SQL, causeMatchSql } from './incidents';
import type { Selection } from './selection';

interface Column {
  column: string;
  /** Lower-cased copy (never null) for ilike. */
  lower?: string;
  /** The column can never be null or empty (datasetId). */
  required?: boolean;
}

const COLUMNS: Record<FilterField, Column> = {
  legacyDatasetId: { column: 'd.legacy_dataset_id' },
  datasetId: { column: 'd.dataset_id', lower: 'd.dataset_id_lower', required: true },
  datasetName: { column: 'd.name', lower: 'd.name_lower' },
  deliveryStatus: { column: 'd.status' },
  dataProduct: { column: 'd.data_product_name', lower: 'd.data_product_lower' },
  supplierId: { column: 'd.supplier_id', lower: 'd.supplier_id_lower' },
  deliveryId: { column: 'd.delivery_id' },
};

export interface SqlFragment {
  sql: string;
  params: string[];
}

/** `*` stays the wildcard; `?` and `[` become one-character classes so they match themselves. */
export function likeToGlob(pattern: string): string {
  return pattern.replace(/[?[]/g, (c) => `[${c}]`);
}

function equals(column: Column, value: string): SqlFragment {
  if (value === '') return { sql: `(${column.column} IS NULL OR ${column.column} = '')`, params: [] };
  return { sql: `${column.column} = ?`, params: [value] };
}

function oneOf(column: Column, values: readonly string[]): SqlFragment {
  const nonEmpty = values.filter((v) => v !== '');
  const parts: string[] = [];
  if (nonEmpty.length > 0) parts.push(`${column.column} IN (${nonEmpty.map(() => '?').join(', ')})`);
  if (nonEmpty.length < values.length) parts.push(`${column.column} IS NULL OR ${column.column} = ''`);
  return { sql: `(${parts.join(' OR ')})`, params: nonEmpty };
}

function not(fragment: SqlFragment, column: Column): SqlFragment {
  // NOT over a nullable comparison is NULL, not true: spell out that empty fields do match neq.
  if (column.required) return { sql: `NOT ${fragment.sql}`, params: fragment.params };
  return { sql: `(${column.column} IS NULL OR NOT ${fragment.sql})`, params: fragment.params };
}

export function filterSql(filter: Filter): SqlFragment {
  const column = COLUMNS[filter.field];
  switch (filter.op) {
    case 'eq':
      return equals(column, filter.value);
    case 'neq':
      return filter.value === ''
        ? { sql: `(${column.column} IS NOT NULL AND ${column.column} != '')`, params: [] }
        : not(equals(column, filter.value), column);
    case 'in':
      return oneOf(column, filter.values);
    case 'like':
      return { sql: `coalesce(${column.column}, '') GLOB ?`, params: [likeToGlob(filter.value)] };
    case 'ilike':
      return {
        sql: `${column.lower ?? column.column} GLOB ?`,
        params: [likeToGlob(filter.value.toLowerCase())],
      };
  }
}

/**
 * Fields whose exact values are (nearly) unique to a dataset. Without statistics SQLite walks the sort
 * index for any filter, scanning the org to find one match; an exact filter on one of these is better
 * answered from its own index, sorting the few matches.
 */
const SELECTIVE_INDEXES: Partial<Record<FilterField, string>> = {
  deliveryId: 'datasets_delivery',
  legacyDatasetId: 'datasets_legacy',
};

/** The index to read the list from, when a filter pins a near-unique field to exact values. */
export function selectiveIndex(filters: readonly Filter[]): string | null {
  for (const filter of filters) {
    const index = SELECTIVE_INDEXES[filter.field];
    if (!index) continue;
    if (filter.op === 'eq' && filter.value !== '') return index;
    if (filter.op === 'in' && filter.values.every((v) => v !== '')) return index;
  }
  return null;
}

export function filtersSql(filters: readonly Filter[]): SqlFragment {
  const parts = filters.map(filterSql);
  return { sql: parts.map((p) => ` AND ${p.sql}`).join(''), params: parts.flatMap((p) => p.params) };
}

/** Every GLOB special character bracketed, so the text matches only itself. */
function literalGlob(text: string): string {
  return text.replace(/[*?[]/g, (c) => `[${c}]`);
}

/**
 * The window's free-text search: the text, case-insensitively, anywhere in the name, dataset id, data
 * product, supplier id or supplier name, or exactly a delivery id or legacy id. An empty text matches all.
 */
export function searchSql(text: string): SqlFragment {
  const trimmed = text.trim();
  if (trimmed === '') return { sql: '', params: [] };
  const pattern = `*${literalGlob(trimmed.toLowerCase())}*`;
  const lowered = ['d.name_lower', 'd.dataset_id_lower', 'd.data_product_lower', 'd.supplier_id_lower'];
  return {
    sql: ` AND (${lowered.map((c) => `${c} GLOB ?`).join(' OR ')} OR lower(coalesce(d.supplier_name, '')) GLOB ? OR d.delivery_id = ? OR d.legacy_dataset_id = ?)`,
    params: [...lowered.map(() => pattern), pattern, trimmed, trimmed],
  };
}

/** The window's triage filters (a cause, unacknowledged only), by causes.ts's rules. */
export function triageSql(selection: Pick<Selection, 'cause' | 'unacknowledged'>): SqlFragment {
  const parts: SqlFragment[] = [];
  if (selection.cause) parts.push(causeMatchSql(selection.cause));
  if (selection.unacknowledged) parts.push({ sql: UNACKNOWLEDGED_SQL, params: [] });
  return { sql: parts.map((p) => ` AND (${p.sql})`).join(''), params: parts.flatMap((p) => p.params) };
}

/** Everything a selection narrows to, after the org: its filters, search and triage filters. */
export function selectionSql(selection: Selection): SqlFragment {
  const parts = [filtersSql(selection.filters), searchSql(selection.search), triageSql(selection)];
  return { sql: parts.map((p) => p.sql).join(''), params: parts.flatMap((p) => p.params) };
}
