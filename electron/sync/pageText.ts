/**
 * Reads a list page's JSON item by item, as it arrives. `JSON.parse` of a 1000-record page with deep
 * history (~10 MB) blocks the event loop for over 100 ms; instead each network chunk is scanned as it
 * comes (a few hundred microseconds each), the items array is cut at its top-level commas, and each
 * item is parsed on its own later, in slices (docs/architecture.md#performance-budgets). Strictness is kept: the
 * envelope (with the items array emptied) and every item go through `JSON.parse`, so text that is not
 * JSON still fails.
 *
 * A page is kept as the UTF-8 bytes received, copied into memory the walk reuses from page to page
 * (`PageMemory`), and an item becomes text only when it is parsed. A page lives for many turns of the
 * event loop (it arrives, then waits while the one before it is saved): as decoded text, or as the
 * network's own chunks, every page outlived V8's young generation and waited for a full collection —
 * ~100 MB per first sync at 10k datasets, which set the process's peak (docs/architecture.md#performance-budgets). The
 * structural characters are ASCII, and UTF-8 never uses an ASCII byte inside a multi-byte character,
 * so cutting the bytes at them is safe.
 */
import { ResizableArrayBuffer } from './resizableBuffer';
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  isSpace,
} from '../store/snapshot/jsonBytes';

export interface SplitPage {
  /** The page without its items: `{"items":[],"nextPageToken":...}`, to parse as usual. */
  envelope: string;
  /**
   * Each element of the top-level `items` array, as UTF-8 JSON; null when `items` is not an array.
   * Views of the page's memory: valid until the page is given back (`PageMemory.give`).
   */
  items: Uint8Array[] | null;
}

const ITEMS_KEY = Buffer.from('items');

const decoder = new TextDecoder();

/** The text of UTF-8 bytes (a leading byte-order mark dropped, invalid sequences replaced, as fetch's `text()`). */
export const utf8Text = (bytes: Uint8Array): string => decoder.decode(bytes);

/** The largest page accepted; far beyond any real one (a 1000-record page of 100 deliveries is ~10 MB). */
export const MAX_PAGE_BYTES = 2 ** 31;
const MIN_PAGE_CAPACITY = 1 << 20;

/**
 * One page's bytes, in a buffer that grows in place: reserved address space, resident only once
 * written, and never a malloc'd block left to fragment the C heap.
 */
export class PageBytes {
  private readonly buffer = new ResizableArrayBuffer(0, { maxByteLength: MAX_PAGE_BYTES });
  private all = new Uint8Array(this.buffer);
  length = 0;

  /** Appends `chunk`; returns where it starts. */
  append(chunk: Uint8Array): number {
    const at = this.length;
    const end = at + chunk.length;
    if (end > this.buffer.byteLength) {
      if (end > MAX_PAGE_BYTES) throw new Error(`a list page past ${MAX_PAGE_BYTES} bytes`);
      const size = Math.max(end, MIN_PAGE_CAPACITY, Math.min(MAX_PAGE_BYTES, 2 * this.buffer.byteLength));
      this.buffer.resize(size);
      this.all = new Uint8Array(this.buffer);
    }
    this.all.set(chunk, at);
    this.length = end;
    return at;
  }

  /** The bytes from `start` to `end` (a view, not a copy). */
  view(start: number, end: number): Uint8Array {
    return new Uint8Array(this.buffer, start, end - start);
  }
}

/**
 * The memory of the pages a walk holds at once (the one being visited, the next arriving), reused for
 * the pages after them. Memory taken and never given back (a failed attempt) is garbage like any other.
 */
export class PageMemory {
  private readonly free: PageBytes[] = [];

  take(): PageBytes {
    const bytes = this.free.pop() ?? new PageBytes();
    bytes.length = 0;
    return bytes;
  }

  /** Gives back a page's memory: views of it (its items) must no longer be used. */
  give(bytes: PageBytes): void {
    if (!this.free.includes(bytes)) this.free.push(bytes);
  }
}

/** Where the scan is relative to the page's top-level `items` member. */
type ItemsState = 'before' | 'key-seen' | 'inside' | 'after' | 'not-an-array' | 'twice';

export class PageSplitter {
  /** Where each item starts and ends, in the page's bytes (pairs). */
  private readonly bounds: number[] = [];
  /** Start of the item being read. */
  private itemStart = 0;
  /** The items array's `[` and `]`, once seen. */
  private open = -1;
  private close = -1;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** At depth 1, the next string is a member name (after `{` or `,`). */
  private expectKey = false;
  /** The member name being read (only at depth 1): its length so far, and whether it is `items` so far. */
  private readingKey = false;
  private keyLength = 0;
  private keyIsItems = false;
  private state: ItemsState = 'before';

  /** `bytes`: memory for the page (from the walk's `PageMemory`, or its own). */
  constructor(readonly bytes: PageBytes = new PageBytes()) {}

  push(chunk: Uint8Array): void {
    const base = this.bytes.append(chunk);
    // Buffer's indexOf is a memchr; the loop below costs a few ns a byte (5 s of a 100k first sync).
    const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    // The next backslash at or after the scan (the chunk's length when none): looked for again only
    // once the scan has passed it, so a chunk without one is searched once, not once per string.
    let backslash = -1;
    for (let i = 0; i < chunk.length; i++) {
      if (this.inString && !this.escaped && !this.readingKey) {
        // Inside a value's string only a backslash or the closing quote matters: on to the first of them.
        if (backslash < i) {
          backslash = buffer.indexOf(BACKSLASH, i);
          if (backslash === -1) backslash = chunk.length;
        }
        const quote = buffer.indexOf(QUOTE, i);
        i = Math.min(quote === -1 ? chunk.length : quote, backslash);
        // The string goes on in the next chunk.
        if (i === chunk.length) break;
      }
      const c = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.readingKey) {
            this.readingKey = false;
            if (this.keyIsItems && this.keyLength === ITEMS_KEY.length) {
              // A second "items" member: leave such a page to JSON.parse.
              this.state = this.state === 'before' ? 'key-seen' : 'twice';
            }
          }
          continue;
        }
        if (this.readingKey) {
          this.keyIsItems &&= ITEMS_KEY[this.keyLength] === c;
          this.keyLength++;
        }
        continue;
      }
      if (c === QUOTE) {
        this.inString = true;
        // A string value for "items": not an array.
        if (this.depth === 1 && !this.expectKey && this.state === 'key-seen') this.state = 'not-an-array';
        if (this.depth === 1 && this.expectKey) {
          this.readingKey = true;
          this.keyLength = 0;
          this.keyIsItems = true;
        }
        this.expectKey = false;
        continue;
      }
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (this.depth === 1 && this.state === 'key-seen') {
          if (c === OPEN_BRACKET) {
            this.state = 'inside';
            this.open = base + i;
            this.itemStart = base + i + 1;
          } else this.state = 'not-an-array';
        }
        this.depth++;
        this.expectKey = this.depth === 1 && c === OPEN_BRACE;
        continue;
      }
      if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        this.depth--;
        if (this.depth === 1 && this.state === 'inside') {
          const end = base + i;
          if (this.bounds.length > 0 || !this.bytes.view(this.itemStart, end).every(isSpace))
            this.bounds.push(this.itemStart, end);
          this.state = 'after';
          this.close = end;
        }
        continue;
      }
      if (c === COMMA) {
        if (this.depth === 1) this.expectKey = true;
        else if (this.depth === 2 && this.state === 'inside') {
          this.bounds.push(this.itemStart, base + i);
          this.itemStart = base + i + 1;
        }
        continue;
      }
      // A value at depth 1 that is not an object or array (a string is handled above).
      if (this.depth === 1 && this.state === 'key-seen' && c > 0x20 && c !== COLON)
        this.state = 'not-an-array';
    }
  }

  /** The split page; null when the bytes have no top-level `"items"` array to split (parse them whole). */
  end(): SplitPage | null {
    const { bytes } = this;
    if (this.state === 'after') {
      const items: Uint8Array[] = [];
      for (let i = 0; i < this.bounds.length; i += 2)
        items.push(bytes.view(this.bounds[i]!, this.bounds[i + 1]!));
      // The envelope's text decoded at once, so a byte-order mark is dropped only at its start.
      const envelope = Buffer.concat([
        bytes.view(0, this.open),
        Buffer.from('[]'),
        bytes.view(this.close + 1, bytes.length),
      ]);
      return { envelope: utf8Text(envelope), items };
    }
    if (this.state === 'not-an-array' || this.state === 'key-seen')
      return { envelope: this.text, items: null };
    return null;
  }

  /** Everything pushed, as text, for a page `end` could not split. */
  get text(): string {
    return utf8Text(this.bytes.view(0, this.bytes.length));
  }
}
