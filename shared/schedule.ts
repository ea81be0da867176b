/**
 * How a deadline config's schedule reads, for the engine (deadlines, statuses) and the window (the
 * schedule in words, the next deadlines) alike: `minute hour dayOfTheMonth month dayOfWeek year`, taken
 * from the config's fields when the five before the year are set (an empty year is any year), else
 * from its `cronExpression`: 5 fields (any year), 6 (with the year), or 7 — seconds first, then the
 * six, as Quartz and croner write it (docs/decisions.md, "Seven-field schedules"). Croner and cronstrue
 * read six fields as seconds-first, so both get croner's 7-part form (seconds at 0 unless given).
 */
import type { DeadlineConfig } from './schemas';

export const SCHEDULE_FIELDS = ['minute', 'hour', 'dayOfTheMonth', 'month', 'dayOfWeek', 'year'] as const;
export type ScheduleField = (typeof SCHEDULE_FIELDS)[number];

/** How many fields a `cronExpression` may have (5, 6 or 7), in words for messages. */
export const EXPRESSION_SHAPES =
  '5 (minute hour dayOfTheMonth month dayOfWeek), 6 (and year) or 7 (second first, then those six)';

/**
 * Croner's seven parts (`second minute hour dayOfTheMonth month dayOfWeek year`), or null when neither
 * the fields nor the expression give a schedule.
 */
export function scheduleFields(config: DeadlineConfig): string[] | null {
  // An empty year is any year; the five others must all be given.
  const fields: string[] = SCHEDULE_FIELDS.map((name) => config[name].trim() || (name === 'year' ? '*' : ''));
  if (fields.every((value) => value !== '')) return ['0', ...fields];
  const given = config.cronExpression.trim().split(/\s+/);
  if (given[0] === '') return null;
  if (given.length === 5) return ['0', ...given, '*'];
  if (given.length === 6) return ['0', ...given];
  if (given.length === 7) return given;
  return null;
}

/** Croner's 7-part pattern (seconds first), or null when the config has no schedule. */
export function cronerPattern(config: DeadlineConfig): string | null {
  return scheduleFields(config)?.join(' ') ?? null;
}

/** The schedule as people write it: without the seconds when they are 0 (the usual 5 or 6 fields). */
export function scheduleExpression(parts: readonly string[]): string {
  return (parts[0] === '0' ? parts.slice(1) : parts).join(' ');
}
