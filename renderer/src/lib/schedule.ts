/**
 * A dataset's processing schedule for people: in words, and the deadlines the engine's clock gives
 * (electron/knowledge/deadlineClock.ts) in the dataset's zone and the user's. Pure functions, so the
 * same inputs always say the same; the deadlines themselves are never worked out here.
 *
 * Schedules are `minute hour dayOfTheMonth month dayOfWeek year` (the year optional; 7 fields add seconds first), read in the
 * dataset's IANA zone ("" = UTC). Both libraries read six fields as seconds-first, so the expression
 * is handed to them in croner's 7-part form with the seconds at 0 — the same reading as the engine's.
 */
import { Cron } from 'croner';
import cronstrue from 'cronstrue';
import { EXPRESSION_SHAPES, scheduleExpression, scheduleFields } from '../../../shared/schedule';
import type { DeadlineConfig } from '../../../shared/schemas';
import { dateTimeFormat } from '../../../shared/time';
import { duration } from './time';

export type ParsedSchedule =
  | {
      ok: true;
      /** The schedule as the dataset gives it (`minute hour day month weekday year`, seconds first when not 0). */
      expression: string;
      /** Croner's 7-part pattern (seconds first), which cronstrue reads the same way. */
      pattern: string;
      /** IANA zone the schedule is read in. */
      timeZone: string;
    }
  | { ok: false; reason: string };

export type Outcome<T> = ({ ok: true } & T) | { ok: false; reason: string };

export interface Deadline {
  /** The instant, RFC 3339 UTC. */
  at: string;
  inDatasetZone: string;
  inUserZone: string;
}

export const NO_SCHEDULE = 'No schedule known';

function zoneOf(config: DeadlineConfig): string {
  return config.timezone.trim() === '' ? 'UTC' : config.timezone.trim();
}

/** Zones already asked about: a table formats thousands of rows in a few zones. */
const zonesKnown = new Map<string, boolean>();

export function isTimeZone(zone: string): boolean {
  let known = zonesKnown.get(zone);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      known = true;
    } catch {
      known = false;
    }
    if (zonesKnown.size < 1_000) zonesKnown.set(zone, known);
  }
  return known;
}

/** The dataset's own zone, for exact times on hover; none, or one this system does not know, is UTC. */
export function shownZone(config: DeadlineConfig | undefined): string {
  const zone = config?.timezone ?? '';
  return zone !== '' && isTimeZone(zone) ? zone : 'UTC';
}

/** The config's schedule (shared/schedule.ts reads it as the engine does), checked by croner. */
export function parseSchedule(config: DeadlineConfig): ParsedSchedule {
  const fields = scheduleFields(config);
  if (fields === null) {
    const given = config.cronExpression.trim().replace(/\s+/g, ' ');
    if (given === '') return { ok: false, reason: NO_SCHEDULE };
    const count = given.split(' ').length;
    return {
      ok: false,
      reason: `The schedule "${given}" has ${count} fields; expected ${EXPRESSION_SHAPES}.`,
    };
  }
  const expression = scheduleExpression(fields);
  const pattern = fields.join(' ');
  try {
    new Cron(pattern, { mode: '7-part' });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: `The schedule "${expression}" is not a valid cron expression (${why}).` };
  }
  return { ok: true, expression, pattern, timeZone: zoneOf(config) };
}

/** "At 06:30, only on Monday" — or why there is nothing to say. */
export function scheduleInWords(
  config: DeadlineConfig,
): Outcome<{ text: string; expression: string; timeZone: string }> {
  const schedule = parseSchedule(config);
  if (!schedule.ok) return schedule;
  let text: string;
  try {
    text = cronstrue.toString(schedule.pattern, { use24HourTimeFormat: true });
  } catch {
    // Croner accepted it, so deadlines still work; only the wording is missing.
    text = `Cron schedule ${schedule.expression}`;
  }
  return { ok: true, text, expression: schedule.expression, timeZone: schedule.timeZone };
}

/**
 * "Sat, Nov 21, 2026, 06:30 EST" in the given zone (the user's by default) and locale; `seconds` adds
 * them ("06:30:15", a seven-field schedule's deadline).
 */
export function formatInZone(at: Date, timeZone?: string, locale?: string, seconds = false): string {
  return dateTimeFormat(locale, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    ...(seconds ? { second: '2-digit' } : {}),
    hourCycle: 'h23',
    timeZone,
    timeZoneName: 'short',
  }).format(at);
}

/** An RFC 3339 time as `formatInZone` says it; "—" when unknown or unreadable. */
export function formatTime(iso: string | null, timeZone?: string): string {
  if (!iso) return '—';
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : formatInZone(at, timeZone);
}

/**
 * A deadline the engine's clock gave (RFC 3339 UTC) in the dataset's zone and in `userZone`; a zone this
 * system does not know is shown as UTC rather than failing the row.
 */
export function deadlineInZones(
  at: string,
  datasetZone: string,
  userZone: string,
  locale?: string,
): Deadline {
  const instant = new Date(at);
  // Seconds only when the deadline has some: most schedules are to the minute.
  const seconds = instant.getUTCSeconds() !== 0;
  return {
    at,
    inDatasetZone: formatInZone(instant, isTimeZone(datasetZone) ? datasetZone : 'UTC', locale, seconds),
    inUserZone: formatInZone(instant, isTimeZone(userZone) ? userZone : 'UTC', locale, seconds),
  };
}

/** How late a delivery came: "on time", "2 h 5 min late", "not delivered" (or "—" without a deadline). */
export function lateness(deadline: string | null, deliveredAt: string | null): string {
  if (deliveredAt === null) return 'not delivered';
  const late = Date.parse(deliveredAt) - Date.parse(deadline ?? '');
  if (Number.isNaN(late)) return '—';
  return late <= 0 ? 'on time' : `${duration(late)} late`;
}
