/**
 * What an import accepts beyond the record shapes (issue #15; the list is docs/decisions.md "Import"):
 * bounded lengths, statuses that are words, IANA time zones and schedules croner can read. Strict mode
 * (import) only: a sync stores what its remote says (docs/api.md), and a file is what a person can fix.
 */
import { Cron } from 'croner';
import { EXPRESSION_SHAPES, SCHEDULE_FIELDS } from '../../../shared/schedule';

/** Identifiers, statuses, datetimes, schedule fields, zones, types: everything not listed below. */
export const MAX_ID_LENGTH = 256;
/** Names people read (dataset, CDU, data product, supplier, task, destination). */
export const MAX_NAME_LENGTH = 1024;
/** Free text of a task (`message`, `codeDetails`). */
export const MAX_TEXT_LENGTH = 65_536;

const NAME_FIELDS = new Set([
  'datasetName',
  'cduName',
  'dataProductName',
  'name',
  'taskName',
  'destinationName',
]);
const TEXT_FIELDS = new Set(['message', 'codeDetails']);

/** The longest value a string field may hold, in UTF-16 code units (JavaScript's `length`). */
export function maxLength(field: string): number {
  if (TEXT_FIELDS.has(field)) return MAX_TEXT_LENGTH;
  return NAME_FIELDS.has(field) ? MAX_NAME_LENGTH : MAX_ID_LENGTH;
}

/** A key or value quoted for a message, cut short: a refusal must never echo megabytes back. */
export function shortQuote(text: string, max = 64): string {
  return `'${JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text).slice(1, -1)}'`;
}

/** A key for a JSON path, `"…"` with escapes, cut short. */
export function jsonKey(key: string, max = 64): string {
  return JSON.stringify(key.length > max ? `${key.slice(0, max)}…` : key);
}

/**
 * Statuses are stored as given (a sync passes unknown ones through, and the API sorts them after the
 * known ones): an import only insists that a status is a word, so no markup or control text is stored.
 */
const STATUS = /^[A-Za-z0-9_-]*$/;

export function statusProblem(value: string): string | null {
  return STATUS.test(value)
    ? null
    : `${shortQuote(value)} is not a status (letters, digits, _ and - only; e.g. FAILED, MISSING, DELIVERED_LATE, HEALTHY, IN_PROGRESS)`;
}

/** IANA names: letters first, then letters, digits, `/`, `_`, `-`, `+` (`Etc/GMT+5`); no offsets or paths. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+/-]*$/;

/** Zones `Intl` knows, once asked (a formatter costs a few hundred microseconds; a file has a few zones). */
const knownZones = new Set<string>();

export function timeZoneProblem(zone: string): string | null {
  if (zone === '' || knownZones.has(zone)) return null;
  const problem = `${shortQuote(zone)} is not an IANA time zone (e.g. Europe/London, America/New_York, UTC; empty means UTC)`;
  if (!ZONE_NAME.test(zone) || zone.includes('//') || zone.endsWith('/')) return problem;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    return problem;
  }
  // Bounded: a hostile file may name many zones, but Intl knows only a few hundred.
  if (knownZones.size < 1_000) knownZones.add(zone);
  return null;
}

/** Croner's verdict on a 7-part pattern (seconds first): null when it reads, else its reason. */
function cronerProblem(pattern: string): string | null {
  try {
    new Cron(pattern, { mode: '7-part', paused: true });
    return null;
  } catch (error) {
    return (error as Error).message.replace(/^CronPattern: /, '');
  }
}

/**
 * Problems of a deadline config's schedule, each with the field it is in: every schedule field given
 * alone must be within its range, and `cronExpression` must be 5, 6 or 7 fields, as shared/schedule.ts
 * reads it.
 */
export function scheduleProblem(config: Record<string, string>): [field: string, problem: string] | null {
  for (const [i, field] of SCHEDULE_FIELDS.entries()) {
    const value = config[field]!.trim();
    if (value === '') continue;
    const parts = SCHEDULE_FIELDS.map((_, j) => (j === i ? value : '*'));
    const problem = /\s/.test(value)
      ? 'one schedule field holds no spaces'
      : cronerProblem(`0 ${parts.join(' ')}`);
    if (problem !== null) return [field, `${shortQuote(value)} is not a valid ${field} field: ${problem}`];
  }
  const expression = config.cronExpression!.trim();
  if (expression === '') return null;
  const fields = expression.split(/\s+/);
  if (fields.length < 5 || fields.length > 7) {
    return [
      'cronExpression',
      `${shortQuote(expression)} has ${fields.length} fields; expected ${EXPRESSION_SHAPES}`,
    ];
  }
  if (fields.length === 5) fields.push('*');
  if (fields.length === 6) fields.unshift('0');
  const problem = cronerProblem(fields.join(' '));
  return problem === null
    ? null
    : ['cronExpression', `${shortQuote(expression)} is not a valid schedule: ${problem}`];
}
