/**
 * Reads the fields of one object of a snapshot's knowledge (knowledgeRecords.ts), each problem thrown
 * as a RecordProblem with its JSON path: unknown fields, wrong types, over-long text, times that are
 * not RFC 3339, values the app could not have stored.
 */
import { MAX_ID_LENGTH, shortQuote, statusProblem } from './importRules';
import { dateTimeRefusal, normalizeDateTime } from './dateTime';
import { RecordProblem, describe, jsonPath } from './recordFields';

/** Reads the fields of one object of the file, each problem thrown with its path. */
export class Fields {
  private readonly input: Record<string, unknown>;

  constructor(
    value: unknown,
    private readonly path: string,
    allowed: readonly string[],
    what: string,
  ) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new RecordProblem(path, `expected ${what} (an object), got ${describe(value)}`);
    this.input = value as Record<string, unknown>;
    for (const key of Object.keys(this.input)) {
      if (!allowed.includes(key))
        throw new RecordProblem(
          jsonPath(path, key),
          `unknown field ${shortQuote(key)} (allowed: ${allowed.join(', ')})`,
        );
    }
  }

  at(key: string): string {
    return jsonPath(this.path, key);
  }

  /** A string of at most `max` characters, or null when absent, null (or, with `emptyIsNull`, ""). */
  text(key: string, max: number, emptyIsNull = false): string | null {
    const value = this.input[key];
    if (value === undefined || value === null || (emptyIsNull && value === '')) return null;
    if (typeof value !== 'string')
      throw new RecordProblem(this.at(key), `expected a string, got ${describe(value)}`);
    if (value.length > max)
      throw new RecordProblem(
        this.at(key),
        `${value.length} characters, over the limit of ${max} for ${key}`,
      );
    return value;
  }

  required(key: string, max: number): string {
    const value = this.text(key, max);
    if (value === null || value === '')
      throw new RecordProblem(this.at(key), `missing; a non-empty string of at most ${max} characters`);
    return value;
  }

  status(key: string): string | null {
    const value = this.text(key, MAX_ID_LENGTH);
    const problem = value === null ? null : statusProblem(value);
    if (problem !== null) throw new RecordProblem(this.at(key), problem);
    return value;
  }

  /** An RFC 3339 time, stored as `2026-11-21T04:41:00.000Z` (as every time of the store). */
  time(key: string): string | null {
    const value = this.text(key, MAX_ID_LENGTH, true);
    if (value === null) return null;
    const time = normalizeDateTime(value);
    if (time === null) throw new RecordProblem(this.at(key), dateTimeRefusal(value));
    return time;
  }

  requiredTime(key: string): string {
    const time = this.time(key);
    if (time === null) throw new RecordProblem(this.at(key), 'missing; an RFC 3339 datetime');
    return time;
  }

  /**
   * A value the app itself could have stored (`problem`: shared/causes.ts's ackNameProblem or
   * noteProblem, what every door that acknowledges checks), said of `subject` ("the name", "the note").
   */
  madeByApp<T extends string | null>(
    key: string,
    value: T,
    problem: (text: string) => string | null,
    subject: string,
  ): T {
    const found = value === null ? null : problem(value);
    if (found !== null) throw new RecordProblem(this.at(key), `${subject} ${found}`);
    return value;
  }

  /** An array (`what`: its elements, for messages). */
  array(key: string, what: string): unknown[] {
    const value = this.input[key];
    if (value === undefined || value === null)
      throw new RecordProblem(this.at(key), `missing; an array of ${what}`);
    if (!Array.isArray(value))
      throw new RecordProblem(this.at(key), `expected an array of ${what}, got ${describe(value)}`);
    return value;
  }

  /** `later` is null, or not before `earlier`. */
  notBefore(later: string | null, laterKey: string, earlier: string | null, earlierKey: string): void {
    if (later !== null && earlier !== null && Date.parse(later) < Date.parse(earlier))
      throw new RecordProblem(this.at(laterKey), `${later} is before ${earlierKey} (${earlier})`);
  }
}
