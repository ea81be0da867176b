/**
 * Fast formatting for bulk generation: `Date#toISOString` costs about a microsecond, which was most
 * of the time when a snapshot holds millions of timestamps. Strings are assembled with `join`, which
 * yields flat strings: `+` and template literals build rope (cons) strings that V8 keeps as trees of
 * pieces, about five times the memory of the flat string, for as long as the snapshot lives.
 */

const DAY_MS = 86_400_000;
const PAD2 = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
const HEX2 = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const dayPrefixes = new Map<number, string>();

/** `new Date(ms).toISOString()` (RFC 3339 UTC with milliseconds), or null for null. */
export function iso(ms: number | null): string | null {
  if (ms === null) return null;
  const day = Math.floor(ms / DAY_MS);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    const text = new Date(day * DAY_MS).toISOString();
    prefix = text.slice(0, text.indexOf('T') + 1);
    if (dayPrefixes.size >= 20_000) dayPrefixes.clear();
    dayPrefixes.set(day, prefix);
  }
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = Math.floor(rest - seconds * 1000);
  return [prefix, PAD2[hours], ':', PAD2[minutes], ':', PAD2[seconds], '.', PAD3[millis], 'Z'].join('');
}

const shared = new Map<number, string | null>();

/**
 * `iso` for instants many records share (deadlines: datasets with one schedule share them), so
 * a snapshot holds one string per distinct instant instead of one per event.
 */
export function isoShared(ms: number | null): string | null {
  if (ms === null) return null;
  let text = shared.get(ms);
  if (text === undefined) {
    text = iso(ms);
    if (shared.size >= 100_000) shared.clear();
    shared.set(ms, text);
  }
  return text;
}

/** Eight lower-case hex digits of a 32-bit value. */
export function hex8(value: number): string {
  const v = value >>> 0;
  return [HEX2[v >>> 24], HEX2[(v >>> 16) & 0xff], HEX2[(v >>> 8) & 0xff], HEX2[v & 0xff]].join('');
}

/** Concatenation into one flat string (see above), for identifiers kept in bulk. */
export function concat(...parts: string[]): string {
  return parts.join('');
}
