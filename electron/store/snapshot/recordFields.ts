/**
 * The pieces normalize.ts and the knowledge readers build records from: the problem a value makes (with
 * its JSON path), the strict or lenient context that decides whether it throws, and readers of one
 * field each.
 */
import { dateTimeRefusal, normalizeDateTime } from './dateTime';
import { MAX_ID_LENGTH, jsonKey, maxLength, shortQuote, statusProblem } from './importRules';

export class RecordProblem extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'RecordProblem';
  }
}

export interface NormalizeContext {
  strict: boolean;
  /** Problems turned into nulls (lenient mode only). */
  problems: RecordProblem[];
}

export function strictContext(): NormalizeContext {
  return { strict: true, problems: [] };
}

export function lenientContext(): NormalizeContext {
  return { strict: false, problems: [] };
}

/** A problem with the value at `path`: thrown in strict mode, counted (and the value null) in lenient. */
export function problem(ctx: NormalizeContext, path: string, message: string): null {
  const found = new RecordProblem(path, message);
  if (ctx.strict) throw found;
  ctx.problems.push(found);
  return null;
}

/** The fields an object of the format may have, in the order messages list them. */
export interface Fields {
  list: readonly string[];
  set: ReadonlySet<string>;
}
export const fields = (list: readonly string[]): Fields => ({ list, set: new Set(list) });

/** Strict mode only: a field the format does not have is most likely a typo of one it has. */
export function knownKeys(
  ctx: NormalizeContext,
  input: Record<string, unknown>,
  allowed: Fields,
  path: string,
): void {
  if (!ctx.strict) return;
  for (const key of Object.keys(input)) {
    if (allowed.set.has(key)) continue;
    problem(
      ctx,
      jsonPath(path, key),
      `unknown field ${shortQuote(key)} (allowed: ${allowed.list.join(', ')})`,
    );
  }
}

/** `path.key`, or `path["key"]` (cut short) when the key is not a plain name. */
export function jsonPath(path: string, key: string): string {
  if (/^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/.test(key)) return `${path}.${key}`;
  return `${path}[${jsonKey(key)}]`;
}

/** Strict mode only: a value over its field's length limit (importRules.ts). */
export function tooLong(ctx: NormalizeContext, value: string, key: string, path: string): boolean {
  // Every limit is at least MAX_ID_LENGTH: most values are shorter, and need no look-up.
  if (!ctx.strict || value.length <= MAX_ID_LENGTH) return false;
  const max = maxLength(key);
  if (value.length <= max) return false;
  problem(ctx, `${path}.${key}`, `${value.length} characters, over the limit of ${max} for ${key}`);
  return true;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads `input[key]` (at `path.key`) as a stored string: null when absent or refused. */
type ReadField = (
  ctx: NormalizeContext,
  input: Record<string, unknown>,
  key: string,
  path: string,
) => string | null;

export const str: ReadField = (ctx, input, key, path) => {
  const value = input[key];
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return tooLong(ctx, value, key, path) ? null : value;
  // A remote's number where a string belongs is kept as text; a file to import must say what it means.
  if (!ctx.strict && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
  return problem(ctx, `${path}.${key}`, `expected a string, got ${describe(value)}`);
};

export const dateTime: ReadField = (ctx, input, key, path) => {
  const value = input[key];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string')
    return problem(ctx, `${path}.${key}`, `expected a datetime string, got ${describe(value)}`);
  if (tooLong(ctx, value, key, path)) return null;
  return normalizeDateTime(value) ?? problem(ctx, `${path}.${key}`, dateTimeRefusal(value));
};

/** A status: any word in strict mode (stored as given, as a sync does; importRules.ts), any string else. */
export const status: ReadField = (ctx, input, key, path) => {
  const value = str(ctx, input, key, path);
  if (value === null || !ctx.strict) return value;
  const found = statusProblem(value);
  return found === null ? value : problem(ctx, `${path}.${key}`, found);
};

/** What a value is, for a message that refuses it. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

export function object(ctx: NormalizeContext, value: unknown, path: string): Record<string, unknown> | null {
  if (value === undefined || value === null) return {};
  if (isObject(value)) return value;
  return problem(ctx, path, `expected an object, got ${describe(value)}`);
}

export function array(ctx: NormalizeContext, value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  problem(ctx, path, `expected an array, got ${describe(value)}`);
  return [];
}
