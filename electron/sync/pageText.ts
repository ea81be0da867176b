/**
 * Reads a list page's JSON text item by item, as it arrives. `JSON.parse` of a 1000-record page with
 * deep history (~10 MB) blocks the event loop for over 100 ms; instead each network chunk is scanned
 * as it comes (a few hundred microseconds each), the items array is cut at its top-level commas, and
 * each item is parsed on its own later, in slices (DESIGN.md §1 stall budget). Strictness is kept: the
 * envelope (with the items array emptied) and every item go through `JSON.parse`, so text that is not
 * JSON still fails.
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

/** Where the scan is relative to the page's top-level `items` member. */
type ItemsState = 'before' | 'key-seen' | 'inside' | 'after' | 'not-an-array' | 'twice';

export class PageSplitter {
  /** All text pushed so far, for pages that cannot be split (JSON.parse then says what is wrong). */
  private whole = '';
  private envelope = '';
  private readonly items: string[] = [];
  /** Text of the item being read, from earlier chunks. */
  private element = '';
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** At depth 1, the next string is a member name (after `{` or `,`). */
  private expectKey = false;
  /** The member name being read (only at depth 1). */
  private key = '';
  private readingKey = false;
  private state: ItemsState = 'before';

  push(chunk: string): void {
    this.whole += chunk;
    /** Start of the text not yet added to the envelope or the current item. */
    let from = 0;
    let keyFrom = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.readingKey) {
            this.readingKey = false;
            this.key += chunk.slice(keyFrom, i);
            if (this.key === 'items') {
              // A second "items" member: leave such a page to JSON.parse.
              this.state = this.state === 'before' ? 'key-seen' : 'twice';
            }
          }
        }
        continue;
      }
      if (c === QUOTE) {
        this.inString = true;
        // A string value for "items": not an array.
        if (this.depth === 1 && !this.expectKey && this.state === 'key-seen') this.state = 'not-an-array';
        if (this.depth === 1 && this.expectKey) {
          this.readingKey = true;
          this.key = '';
          keyFrom = i + 1;
        }
        this.expectKey = false;
        continue;
      }
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (this.depth === 1 && this.state === 'key-seen') {
          if (c === OPEN_BRACKET) {
            this.state = 'inside';
            this.envelope += chunk.slice(from, i) + '[]';
            from = i + 1;
            this.element = '';
          } else this.state = 'not-an-array';
        }
        this.depth++;
        this.expectKey = this.depth === 1 && c === OPEN_BRACE;
        continue;
      }
      if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        this.depth--;
        if (this.depth === 1 && this.state === 'inside') {
          const last = this.element + chunk.slice(from, i);
          if (last.trim() !== '' || this.items.length > 0) this.items.push(last);
          this.state = 'after';
          from = i + 1;
        }
        continue;
      }
      if (c === COMMA) {
        if (this.depth === 1) this.expectKey = true;
        else if (this.depth === 2 && this.state === 'inside') {
          this.items.push(this.element + chunk.slice(from, i));
          this.element = '';
          from = i + 1;
        }
        continue;
      }
      // A value at depth 1 that is not an object or array (a string is handled above).
      if (this.depth === 1 && this.state === 'key-seen' && c > 0x20 && c !== 0x3a)
        this.state = 'not-an-array';
    }
    if (this.readingKey) this.key += chunk.slice(keyFrom);
    const rest = chunk.slice(from);
    if (this.state === 'inside') this.element += rest;
    else this.envelope += rest;
  }

  /** The split page; null when the text has no top-level `"items"` array to split (parse it whole). */
  end(): SplitPage | null {
    if (this.state === 'after') return { envelope: this.envelope, items: this.items };
    if (this.state === 'not-an-array' || this.state === 'key-seen')
      return { envelope: this.whole, items: null };
    return null;
  }

  /** Everything pushed, for a page `end` could not split. */
  get text(): string {
    return this.whole;
  }
}
