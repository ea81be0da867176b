/**
 * Which datasets a request selects, and in what order, as both doors ask for them (docs/api.md#list,
 * docs/architecture.md#the-window): the v2 list route and the window's RPC calls parse their filter and sort texts here, once,
 * into a typed selection that every query below takes. A bad text is an InvalidArgument naming its
 * parameter; each door translates that, in one place, into its own error shape.
 */
import {
  FilterError,
  type Filter,
  controlCharacterProblem,
  parseFilter,
  printFilter,
} from '../../shared/filter';
import { type ParsedCause, causeIdOf, parseCauseId } from '../../shared/causes';
import { SortError, type SortKey, parseSort, printSort } from '../../shared/sort';
import { InvalidArgument } from './errors';

/** A selection as it arrives: filter texts (`field.op.value`), a sort text (`""`: by name), a search. */
export interface SelectionText {
  orgId: string;
  filters: readonly string[];
  sort: string;
  /** The window's free text search; the v2 list has none. */
  search?: string;
  /** The window's triage filters (docs/architecture.md#incidents): the datasets of one cause id, and only unacknowledged troubles. */
  cause?: string | null;
  unacknowledged?: boolean;
}

export interface Selection {
  orgId: string;
  filters: readonly Filter[];
  sort: readonly SortKey[];
  search: string;
  /** Present only when set (the v2 list never sets them). */
  cause?: ParsedCause;
  unacknowledged?: true;
}

/** One page of a selection. */
export interface PageRequest extends Selection {
  pageSize: number;
  pageToken: string | null;
}

/**
 * Bounds on one request's filters, far above what a person or a script asks for: they keep every query
 * under SQLite's 32,766 bound variables (each `in` item is one; all other filters and the search take a
 * few dozen) and cheap to refuse.
 */
export const SELECTION_LIMITS = { filters: 50, inItems: 5000, filterCharacters: 65_536 } as const;

const count = (n: number): string => n.toLocaleString('en-US');

function checkSize(filters: readonly string[]): void {
  const { filters: maxFilters, filterCharacters } = SELECTION_LIMITS;
  if (filters.length > maxFilters) {
    throw new InvalidArgument(
      'filter',
      `filter: at most ${maxFilters} filters are allowed (${count(filters.length)} given)`,
    );
  }
  const characters = filters.reduce((sum, filter) => sum + filter.length, 0);
  if (characters > filterCharacters) {
    throw new InvalidArgument(
      'filter',
      `filter: the filters may hold at most ${count(filterCharacters)} characters in all (${count(characters)} given)`,
    );
  }
}

function checkItems(filters: readonly Filter[]): void {
  const items = filters.reduce((sum, filter) => sum + (filter.op === 'in' ? filter.values.length : 0), 0);
  if (items > SELECTION_LIMITS.inItems) {
    throw new InvalidArgument(
      'filter',
      `filter: the 'in' lists may hold at most ${count(SELECTION_LIMITS.inItems)} items in all (${count(items)} given)`,
    );
  }
}

/** Parses the texts as the v2 API defines them; the first bad one is an InvalidArgument. */
export function parseSelection(text: SelectionText): Selection {
  checkSize(text.filters);
  const search = text.search ?? '';
  const control = controlCharacterProblem(search);
  if (control !== null) throw new InvalidArgument('search', `search: the text ${control}`);
  const filters = text.filters.map((filter) => {
    try {
      return parseFilter(filter);
    } catch (error) {
      if (error instanceof FilterError) throw new InvalidArgument('filter', error.message);
      throw error;
    }
  });
  checkItems(filters);
  let sort: SortKey[];
  try {
    sort = parseSort(text.sort);
  } catch (error) {
    if (error instanceof SortError) throw new InvalidArgument('sort', error.message);
    throw error;
  }
  const cause = text.cause === undefined || text.cause === null ? undefined : parseCause(text.cause);
  return {
    orgId: text.orgId,
    filters,
    sort,
    search,
    ...(cause ? { cause } : {}),
    ...(text.unacknowledged === true ? { unacknowledged: true as const } : {}),
  };
}

function parseCause(text: string): ParsedCause {
  try {
    return parseCauseId(text);
  } catch (error) {
    throw new InvalidArgument('cause', `cause: ${(error as Error).message}`);
  }
}

/**
 * The selection's canonical texts, in any order the filters came: what page tokens are bound to and page
 * caches are keyed by, so equivalent spellings of a request share them.
 */
export function canonicalSelection(selection: Selection): { filters: string[]; sort: string } {
  const search = selection.search.trim();
  return {
    filters: [
      ...selection.filters.map(printFilter),
      ...(search ? [`search:${search}`] : []),
      ...(selection.cause ? [`cause:${causeIdOf(selection.cause)}`] : []),
      ...(selection.unacknowledged ? ['unacknowledged'] : []),
    ].sort(),
    sort: printSort(selection.sort),
  };
}
