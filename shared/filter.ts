/**
 * The list endpoint's filter grammar (docs/api.md#list): `<field>.<operator>.<value>`.
 * Shared by the engine (HTTP API) and the renderer, so it imports nothing from Node.
 */
import { DELIVERY_STATUSES, isDeliveryStatus } from './status';

/** Allowed operators per filter field, exactly as the spec's table. */
export const FILTER_FIELDS = {
  legacyDatasetId: ['eq', 'neq', 'in'],
  datasetId: ['eq', 'neq', 'in', 'like', 'ilike'],
  datasetName: ['eq', 'neq', 'in', 'like', 'ilike'],
  deliveryStatus: ['eq', 'neq', 'in'],
  dataProduct: ['eq', 'neq', 'in', 'like', 'ilike'],
  supplierId: ['eq', 'neq', 'in', 'like', 'ilike'],
  deliveryId: ['eq', 'neq', 'in'],
} as const satisfies Record<string, readonly FilterOperator[]>;

export type FilterField = keyof typeof FILTER_FIELDS;

export const FILTER_OPERATORS = ['eq', 'neq', 'in', 'like', 'ilike'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export type Filter =
  | { field: FilterField; op: 'eq' | 'neq' | 'like' | 'ilike'; value: string }
  | { field: FilterField; op: 'in'; values: string[] };

/** A filter that does not parse; the message is the user-facing explanation (one line). */
export class FilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FilterError';
  }
}

const FIELD_NAMES = Object.keys(FILTER_FIELDS) as FilterField[];

export function isFilterField(name: string): name is FilterField {
  return Object.hasOwn(FILTER_FIELDS, name);
}

/** The operators allowed for a field. */
export function allowedOperators(field: FilterField): readonly FilterOperator[] {
  return FILTER_FIELDS[field];
}

const MAX_QUOTED = 200;

/**
 * Quotes user text for an error message: single quotes, control and line-separator characters
 * escaped (so the message stays one line), cut after MAX_QUOTED code units.
 */
export function quoteForMessage(text: string): string {
  let shown = text;
  let cut = false;
  if (shown.length > MAX_QUOTED) {
    let end = MAX_QUOTED;
    const code = shown.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end -= 1; // do not split a surrogate pair
    shown = shown.slice(0, end);
    cut = true;
  }
  // eslint-disable-next-line no-control-regex
  shown = shown.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (ch) => {
    switch (ch) {
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default:
        return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }
  });
  return `'${shown}${cut ? '…' : ''}'`;
}

/** C0 controls and DEL: SQLite's GLOB stops at a NUL, so such values could never match as written. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * Why `text` (a filter value or search text) is refused, or null when it is allowed: control characters
 * (U+0000–U+001F, U+007F) are refused, whatever the operator, so none of them silently matches otherwise.
 */
export function controlCharacterProblem(text: string): string | null {
  const index = text.search(CONTROL_CHARACTER);
  if (index === -1) return null;
  return `contains the control character ${quoteForMessage(text[index]!)} at position ${index + 1} (control characters U+0000–U+001F and U+007F are not allowed)`;
}

function notAStatus(value: string): string {
  return `${quoteForMessage(value)} is not a delivery status (allowed: ${DELIVERY_STATUSES.join(', ')})`;
}

/** Parses one `filter` query value; throws FilterError with a message naming what is allowed. */
export function parseFilter(text: string): Filter {
  const fail = (reason: string): never => {
    throw new FilterError(`filter ${quoteForMessage(text)}: ${reason}`);
  };

  const firstDot = text.indexOf('.');
  const secondDot = firstDot === -1 ? -1 : text.indexOf('.', firstDot + 1);
  if (secondDot === -1) return fail('expected <field>.<operator>.<value>');

  const field = text.slice(0, firstDot);
  const op = text.slice(firstDot + 1, secondDot);
  const value = text.slice(secondDot + 1);

  if (!isFilterField(field)) {
    return fail(`unknown field ${quoteForMessage(field)} (allowed: ${FIELD_NAMES.join(', ')})`);
  }
  const allowed: readonly string[] = FILTER_FIELDS[field];
  if (!allowed.includes(op)) {
    return fail(
      `operator ${quoteForMessage(op)} is not allowed for ${field} (allowed: ${allowed.join(', ')})`,
    );
  }

  const control = controlCharacterProblem(value);
  if (control !== null) return fail(`the value ${control}`);

  if (op === 'in') {
    const values = parseList(value, fail);
    if (field === 'deliveryStatus') {
      for (const item of values) if (!isDeliveryStatus(item)) fail(notAStatus(item));
    }
    return { field, op, values };
  }
  if (field === 'deliveryStatus' && !isDeliveryStatus(value)) return fail(notAStatus(value));
  return { field, op: op as 'eq' | 'neq' | 'like' | 'ilike', value };
}

/** The character (whole code point) at `index`, for messages. */
function charAt(text: string, index: number): string {
  return String.fromCodePoint(text.codePointAt(index) ?? 0);
}

/**
 * Scans the value of an `in` filter: `(item,item,...)`. An item is either unquoted (taken
 * literally, no `,` `(` `)` `"`, not empty) or double-quoted with `\"` and `\\` escapes.
 */
function parseList(text: string, fail: (reason: string) => never): string[] {
  if (!text.startsWith('(')) {
    return fail("the value of 'in' must be a parenthesised list such as (a,b,c)");
  }
  if (text === '()') return fail('the list is empty');

  const items: string[] = [];
  let pos = 1;
  for (;;) {
    const number = items.length + 1;
    let item = '';
    if (text[pos] === '"') {
      pos += 1;
      let closed = false;
      while (pos < text.length) {
        const ch = text[pos];
        if (ch === '"') {
          closed = true;
          pos += 1;
          break;
        }
        if (ch === '\\') {
          const next = text[pos + 1];
          if (next === '"' || next === '\\') {
            item += next;
            pos += 2;
            continue;
          }
          if (next === undefined) break; // unterminated
          return fail(
            `item ${number} of the list has an invalid escape ${quoteForMessage('\\' + charAt(text, pos + 1))} (inside quotes only \\" and \\\\ are allowed)`,
          );
        }
        item += ch;
        pos += 1;
      }
      if (!closed) return fail(`item ${number} of the list has an unterminated quote`);
      if (pos >= text.length) return fail("the list is missing its closing ')'");
      const after = text[pos];
      if (after !== ',' && after !== ')') {
        return fail(
          `item ${number} of the list has ${quoteForMessage(charAt(text, pos))} after its closing quote (expected ',' or ')')`,
        );
      }
    } else {
      const start = pos;
      while (pos < text.length) {
        const ch = text[pos];
        if (ch === ',' || ch === ')') break;
        if (ch === '(' || ch === '"') {
          return fail(
            `item ${number} of the list contains ${quoteForMessage(ch)}; quote an item that contains , ( ) or " (write "a,b" with \\" and \\\\ escapes)`,
          );
        }
        pos += 1;
      }
      item = text.slice(start, pos);
      if (pos >= text.length) return fail("the list is missing its closing ')'");
      if (item === '') {
        return fail(`item ${number} of the list is empty (write "" for an empty value)`);
      }
    }
    items.push(item);
    // text[pos] is ',' or ')'.
    if (text[pos] === ')') {
      if (pos !== text.length - 1) {
        return fail(`unexpected text ${quoteForMessage(text.slice(pos + 1))} after the closing ')'`);
      }
      return items;
    }
    pos += 1;
  }
}

function quoteItem(item: string): string {
  if (item !== '' && !/[,()"\\]/.test(item)) return item;
  return `"${item.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`;
}

/** The canonical text of a filter: `parseFilter(printFilter(f))` deep-equals `f` for a valid `f`. */
export function printFilter(filter: Filter): string {
  const value = filter.op === 'in' ? `(${filter.values.map(quoteItem).join(',')})` : filter.value;
  return `${filter.field}.${filter.op}.${value}`;
}

/**
 * The reference semantics of `like` / `ilike`: `*` matches any run of characters (also none),
 * every other character is literal. `caseInsensitive` lower-cases pattern and text with
 * `toLowerCase()` first. Linear scan (anchored first and last segment, greedy `indexOf` for the
 * middle ones), so many `*` cannot cause backtracking blow-up.
 */
export function likeToMatcher(pattern: string, caseInsensitive: boolean): (text: string) => boolean {
  const segments = (caseInsensitive ? pattern.toLowerCase() : pattern).split('*');
  const first = segments[0] ?? '';
  if (segments.length === 1) {
    return (text) => (caseInsensitive ? text.toLowerCase() : text) === first;
  }
  const last = segments[segments.length - 1] ?? '';
  const middle = segments.slice(1, -1).filter((segment) => segment !== '');
  const minLength = first.length + last.length + middle.reduce((sum, s) => sum + s.length, 0);
  return (input) => {
    const text = caseInsensitive ? input.toLowerCase() : input;
    if (text.length < minLength || !text.startsWith(first) || !text.endsWith(last)) return false;
    const end = text.length - last.length;
    let pos = first.length;
    for (const segment of middle) {
      const found = text.indexOf(segment, pos);
      if (found === -1 || found + segment.length > end) return false;
      pos = found + segment.length;
    }
    return true;
  };
}
