/**
 * Cuts one JSON value (or member name) out of a file's bytes as they arrive, across chunks, and keeps
 * the place in the file (line and column) so a complaint names where it is. The snapshot reader
 * (snapshotText.ts) says what is collected and what each piece means; this file only scans bytes.
 */
import { shortQuote } from './importRules';
import * as byte from './jsonBytes';
import { SnapshotError } from './snapshotError';
import type { SnapshotLimits } from './snapshotLimits';

/** What the text being collected is: a member name, or a value (a member's, or a record of a section). */
export type Collecting = 'name' | 'top-value' | 'record' | null;

/** `scan`'s answer when the text being collected passed a limit (`JsonCollector.passed` says which). */
export const PASSED = -2;

/** A limit the text being collected passed, and where: the text's start (size) or the byte (depth). */
export interface Passed {
  limit: 'size' | 'depth';
  line: number;
  column: number;
}

/** `JSON.parse` quotes a bit of the text in its messages: a refusal stays on one line. */
export const oneLine = (message: string): string =>
  // eslint-disable-next-line no-control-regex
  message.replace(/[\u0000-\u001f]/g, (c) => JSON.stringify(c).slice(1, -1));

/**
 * The value that is the rest of the line from `start` (at most `maxBytes`), and where it ends (at its
 * comma, if any).
 */
export function lineValue(
  chunk: Buffer,
  start: number,
  maxBytes: number,
): { parsed: unknown; end: number; comma: boolean } | null {
  const newline = chunk.indexOf(byte.NEWLINE, start);
  // A line over the record limit is scanned, and refused where it passes it.
  if (newline < 0 || newline - start > maxBytes) return null;
  let end = newline;
  while (end > start && byte.isSpace(chunk[end - 1]!)) end--;
  const comma = chunk[end - 1] === byte.COMMA;
  const last = comma ? end - 2 : end - 1;
  // Only a line that ends as it began (`{…}`) may be one whole record: no parse is wasted on `{` alone.
  const open = chunk[start];
  const close = chunk[last];
  if (!(
    (open === byte.OPEN_BRACE && close === byte.CLOSE_BRACE) ||
    (open === byte.OPEN_BRACKET && close === byte.CLOSE_BRACKET)
  ))
    return null;
  try {
    return {
      parsed: JSON.parse(chunk.toString('utf8', start, last + 1)),
      end: comma ? end - 1 : end,
      comma,
    };
  } catch {
    // Scanned instead, and parsed again where the scan ends it: its message is placed there.
    return null;
  }
}

export class JsonCollector {
  collecting: Collecting = null;
  /** Set when `scan` returns PASSED. */
  passed: Passed | null = null;
  /** Bytes of the name or value being collected, from earlier chunks, and how many. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Where the text being collected starts in this chunk (-1: it started in an earlier one). */
  private from = -1;
  /** Nesting inside the value being collected. */
  private depth = 0;
  private inString = false;
  /** The string's next byte is escaped (a backslash ended the previous chunk). */
  private escaped = false;
  /** The file's bytes before the current chunk, and its line and the offset where that line starts. */
  private offset = 0;
  line = 1;
  private lineStart = 0;
  /** Where the value being collected starts in the file, for messages. */
  private valueLine = 1;
  private valueColumn = 1;

  constructor(private readonly limits: Pick<SnapshotLimits, 'recordBytes' | 'depth' | 'nameBytes'>) {}

  begin(what: Exclude<Collecting, null>, i: number): void {
    this.collecting = what;
    this.passed = null;
    this.from = i;
    this.pending = [];
    this.pendingBytes = 0;
    this.depth = 0;
    this.valueLine = this.line;
    this.valueColumn = this.offset + i - this.lineStart + 1;
    // A name's opening quote is part of its JSON text; the scan resumes after it (the caller moves on).
    this.inString = what === 'name';
    this.escaped = false;
  }

  /**
   * Scans the name or value being collected from `start`; returns where it ends in this chunk, -1
   * when it goes on in the next, or PASSED at the byte where it passes a limit (its size, or its
   * nesting): nothing past a limit is kept. A value ends at a `,`, a closing bracket or whitespace
   * outside any string or nesting of its own; a name at its closing quote. A plain loop over the bytes (strings are
   * most of them): faster than `indexOf` per string.
   */
  scan(chunk: Buffer, start: number): number {
    const name = this.collecting === 'name';
    const from = this.from < 0 ? 0 : this.from;
    // The text may have `max` bytes; a value's are followed by the byte that ends it. The scan stops at
    // `limitAt`: a text that has not ended there is over its limit.
    const max = name ? this.limits.nameBytes : this.limits.recordBytes;
    const limitAt = from + max - this.pendingBytes + (name ? 0 : 1);
    const length = Math.min(chunk.length, limitAt);
    const maxDepth = this.limits.depth;
    // Locals in the loop, written back when it stops: it sees every byte of the file.
    let i = start;
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    let end = -1;
    while (i < length) {
      if (inString) {
        if (escaped) {
          escaped = false;
          i++;
        }
        for (; i < length; i++) {
          const c = chunk[i]!;
          if (c === byte.QUOTE) break;
          if (c === byte.BACKSLASH && ++i === length) escaped = true;
        }
        // The string goes on in the next chunk (or past the limit).
        if (i >= length) break;
        inString = false;
        i++;
        if (this.collecting === 'name') {
          end = i;
          break;
        }
        continue;
      }
      const c = chunk[i]!;
      if (c === byte.QUOTE) inString = true;
      else if (c === byte.OPEN_BRACE || c === byte.OPEN_BRACKET) {
        if (++depth > maxDepth) {
          this.passed = { limit: 'depth', line: this.line, column: this.offset + i - this.lineStart + 1 };
          return PASSED;
        }
      } else if (c === byte.CLOSE_BRACE || c === byte.CLOSE_BRACKET || c === byte.COMMA) {
        if (depth === 0) {
          end = i;
          break;
        }
        if (c !== byte.COMMA) depth--;
      } else if (c <= 0x20 && byte.isSpace(c)) {
        // Whitespace outside the value's brackets ends it: none is kept after a value (a well-formed
        // file may hold any amount), and the value's own bytes are what its limit counts.
        if (depth === 0) {
          end = i;
          break;
        }
        if (c === byte.NEWLINE) this.newline(i);
      }
      i++;
    }
    if (end < 0 && i >= limitAt) {
      this.passed = { limit: 'size', line: this.valueLine, column: this.valueColumn };
      return PASSED;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    if (end >= 0 && this.collecting !== 'name') this.depth = 0;
    return end;
  }

  /** The name collected up to its limit, once it passed it (a few KiB: to quote its start). */
  nameSoFar(chunk: Buffer): string {
    const from = this.from < 0 ? 0 : this.from;
    const upTo = Math.min(chunk.length, from + this.limits.nameBytes - this.pendingBytes);
    return Buffer.concat([...this.pending, chunk.subarray(from, Math.max(from, upTo))]).toString('utf8');
  }

  /** The collected text up to `end` of this chunk, and the collection reset. */
  take(chunk: Buffer, end: number): string {
    const from = this.from < 0 ? 0 : this.from;
    const text =
      this.pending.length === 0
        ? chunk.toString('utf8', from, end)
        : Buffer.concat([...this.pending, chunk.subarray(from, end)]).toString('utf8');
    this.pending = [];
    this.pendingBytes = 0;
    this.from = -1;
    this.collecting = null;
    return text;
  }

  /** The chunk is scanned: keeps the part of it that belongs to a name or value still being collected. */
  endChunk(chunk: Buffer): void {
    if (this.collecting !== null) {
      // A copy: the reader may reuse its buffer for the next chunk. Never past a limit: `scan` stops there.
      const rest = Buffer.from(chunk.subarray(this.from < 0 ? 0 : this.from));
      this.pending.push(rest);
      this.pendingBytes += rest.length;
      this.from = -1;
    }
    this.offset += chunk.length;
  }

  /** `JSON.parse` of one piece, its complaint placed in the file (line and column, not the piece's). */
  parse(text: string, path?: string): unknown {
    try {
      return JSON.parse(text);
    } catch (error) {
      const message = (error as Error).message;
      const at = /^(.*?)(?: in JSON)? at position (\d+)(?: \(line \d+ column \d+\))?$/s.exec(message);
      let where = `line ${this.valueLine}`;
      let problem = message;
      if (at) {
        const position = Number(at[2]);
        const before = text.slice(0, position);
        const lines = before.split('\n');
        const line = this.valueLine + lines.length - 1;
        const column = lines.length === 1 ? this.valueColumn + position : lines.at(-1)!.length + 1;
        where = `line ${line}, column ${column}`;
        problem = at[1]!;
      }
      throw new SnapshotError(`not valid JSON${path ? ` in ${path}` : ''} (${where}): ${oneLine(problem)}`);
    }
  }

  unexpected(chunk: Buffer, i: number, expected: string): never {
    const column = this.offset + i - this.lineStart + 1;
    const found = chunk.toString('utf8', i, Math.min(i + 16, chunk.length)).split('\n')[0];
    throw new SnapshotError(
      `not valid JSON (line ${this.line}, column ${column}): expected ${expected}, found ${shortQuote(found ?? '', 12)}`,
    );
  }

  newline(i: number): void {
    this.line++;
    this.lineStart = this.offset + i + 1;
  }
}
