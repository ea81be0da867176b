/**
 * The list endpoint's `sort` parameter (docs/api.md#list): comma-separated keys, each
 * `<field>`, `<field>.asc` or `<field>.desc`. Shared by the engine and the renderer.
 */
import { quoteForMessage } from './filter';

export const SORT_FIELDS = ['latestDeliveryStatus', 'latestDeliveryTimestamp'] as const;
export type SortField = (typeof SORT_FIELDS)[number];

export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

export interface SortKey {
  field: SortField;
  direction: SortDirection;
}

/** A sort parameter that does not parse; the message is the user-facing explanation (one line). */
export class SortError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SortError';
  }
}

export function isSortField(name: string): name is SortField {
  return (SORT_FIELDS as readonly string[]).includes(name);
}

function isSortDirection(name: string): name is SortDirection {
  return (SORT_DIRECTIONS as readonly string[]).includes(name);
}

/** Parses a `sort` query value; `''` means no sort keys. Throws SortError. */
export function parseSort(text: string): SortKey[] {
  if (text === '') return [];
  const fail = (reason: string): never => {
    throw new SortError(`sort ${quoteForMessage(text)}: ${reason}`);
  };

  const keys: SortKey[] = [];
  const parts = text.split(',');
  for (const [index, part] of parts.entries()) {
    if (part === '') {
      return fail(`sort key ${index + 1} is empty (separate keys with single commas, no trailing comma)`);
    }
    const dot = part.indexOf('.');
    const field = dot === -1 ? part : part.slice(0, dot);
    const direction = dot === -1 ? 'asc' : part.slice(dot + 1);
    if (!isSortField(field)) {
      return fail(`unknown field ${quoteForMessage(field)} (allowed: ${SORT_FIELDS.join(', ')})`);
    }
    if (!isSortDirection(direction)) {
      return fail(
        `direction ${quoteForMessage(direction)} is not allowed for ${field} (allowed: ${SORT_DIRECTIONS.join(', ')}; omitted means asc)`,
      );
    }
    if (keys.some((key) => key.field === field)) return fail(`field ${field} is given more than once`);
    keys.push({ field, direction });
  }
  return keys;
}

/** The canonical text of sort keys, always with an explicit direction. */
export function printSort(keys: readonly SortKey[]): string {
  return keys.map((key) => `${key.field}.${key.direction}`).join(',');
}
