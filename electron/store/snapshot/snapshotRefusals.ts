/**
 * The words of the snapshot reader's refusals that are not about one record's fields: a file that is not
 * a snapshot object, a member of the wrong shape, and a piece past one of the limits that hold whatever
 * the file's size (snapshotLimits.ts).
 */
import { MAX_ID_LENGTH, jsonKey, shortQuote } from './importRules';
import { type Passed, oneLine } from './jsonCollector';
import { jsonPath } from './recordFields';
import type { SnapshotLimits } from './snapshotLimits';

/** What a refusal says of a file that is not an object, from the few KiB of it that were kept. */
export function notAnObject(kept: Buffer, whole: boolean): string {
  const expected = '$: expected an object with "datasets" (and optionally "tasks")';
  const text = kept.toString('utf8');
  if (!whole) return `${expected}, but the file starts with '${shown(text.slice(0, 24))}…'`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not valid JSON: ${oneLine((error as Error).message)}`;
  }
  return `${expected}, got ${describe(value)}`;
}

/** A record or member value (at `path`) past the size or nesting limit. */
export function pastLimit(passed: Passed, path: string, what: string, limits: SnapshotLimits): string {
  const where = `${path} (line ${passed.line}, column ${passed.column})`;
  return passed.limit === 'size'
    ? `${where}: over ${bytes(limits.recordBytes)} of JSON text, the limit for ${what}`
    : `${where}: nested deeper than ${limits.depth} levels, the limit for ${what}`;
}

/**
 * A member name of the snapshot object, or a key of `tasks`/`timeline` (a `key`: deliveryId,
 * datasetId), past the name limit: `text` is its JSON text up to the limit, quoted by its start.
 */
export function nameTooLong(
  text: string,
  map: { name: string; key: string } | null,
  allowed: readonly string[],
  limits: SnapshotLimits,
): string {
  const name = decodeStart(text.slice(1));
  if (map === null)
    return `${jsonPath('$', name)}: unknown field ${shortQuote(name)} (allowed: ${allowed.join(', ')})`;
  return `$.${map.name}[${jsonKey(name)}]: a ${map.key} of more than ${bytes(limits.nameBytes)}, over the limit of ${MAX_ID_LENGTH} characters`;
}

/** The start of a JSON string's text (no quotes) as a string: it may end inside an escape or a character. */
function decodeStart(raw: string): string {
  // An escape is at most 6 characters (`\uXXXX`): one of the last few cuts ends outside it.
  for (let cut = raw.length; cut >= Math.max(0, raw.length - 6); cut--) {
    try {
      return JSON.parse(`"${raw.slice(0, cut)}"`) as string;
    } catch {
      // A control character or a broken escape: try a shorter cut, then give the text as it is.
    }
  }
  return raw;
}

/** Text as it is, but for control characters and backslashes, which are escaped: the message stays one plain line. */
const shown = (text: string): string =>
  // eslint-disable-next-line no-control-regex
  text.replace(/[\u0000-\u001f\u007f-\u009f\\]/g, (c) => JSON.stringify(c).slice(1, -1));

/** A byte count as the limits are written: `64 MiB`, `4 KiB`, or `1000 bytes`. */
function bytes(n: number): string {
  if (n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
