/**
 * Reads a list page's JSON text item by item. `JSON.parse` of a 1000-record page with deep history
 * (~10 MB) blocks the event loop for over 100 ms; the items array is instead cut at its top-level
 * commas in one cheap scan, and each item is parsed on its own, in slices (DESIGN.md §1 stall budget).
 * Strictness is kept: the envelope (with the items array emptied) and every item go through
 * `JSON.parse`, so text that is not JSON still fails.
 */

export interface SplitPage {
  /** The page without its items: `{"items":[],"nextPageToken":...}`, to parse as usual. */
  envelope: string;
  /** Each element of the top-level `items` array, as JSON text; null when `items` is not an array. */
  items: string[] | null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/** Index just past the string that starts at `start` (a quote). */
function skipString(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) return text.length;
    // An escaped quote has an odd number of backslashes before it.
    let backslashes = 0;
    for (let j = quote - 1; j > start && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

/**
 * Splits the page; null when the text is not an object with an `"items"` member at its top level
 * (the caller then parses it whole, which reports what is wrong).
 */
export function splitPage(text: string): SplitPage | null {
  let depth = 0;
  /** Where the value of the top-level "items" member starts, and the array's element boundaries. */
  let itemsStart = -1;
  let itemsEnd = -1;
  let elementStart = -1;
  const items: string[] = [];
  let keyAt = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = skipString(text, i);
      // A string at depth 1 directly after '{' or ',' is a member name.
      if (depth === 1 && keyAt >= 0 && text.slice(i, end) === '"items"') {
        // A second "items" member: leave such a page to JSON.parse.
        if (itemsStart !== -1) return null;
        itemsStart = -2;
      }
      keyAt = -1;
      i = end - 1;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth === 1 && itemsStart === -2) {
        if (c !== OPEN_BRACKET) return { envelope: text, items: null };
        itemsStart = i;
        elementStart = i + 1;
      }
      depth++;
      if (depth === 1) keyAt = i;
      continue;
    }
    if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 1 && itemsStart >= 0 && itemsEnd < 0) {
        const last = text.slice(elementStart, i);
        if (last.trim() !== '' || items.length > 0) items.push(last);
        itemsEnd = i + 1;
      }
      continue;
    }
    if (c === COMMA) {
      if (depth === 1) keyAt = i;
      else if (depth === 2 && itemsStart >= 0 && itemsEnd < 0) {
        items.push(text.slice(elementStart, i));
        elementStart = i + 1;
      }
    }
  }
  if (itemsStart === -2) return { envelope: text, items: null };
  if (itemsStart < 0 || itemsEnd < 0) return null;
  return { envelope: `${text.slice(0, itemsStart)}[]${text.slice(itemsEnd)}`, items };
}
