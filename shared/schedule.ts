/**
 * How a deadline config's schedule reads, for the engine (deadlines, statuses) and the window (the
 * schedule in words, the next deadlines) alike: `minute hour dayOfTheMonth month dayOfWeek year`, taken
 * from the config's fields when the five before the year are set (an empty year is any year), else
 * from its `cronExpression` (6 fields, or 5 with
 * the year as `*`). Croner and cronstrue read six fields as seconds-first, so both get croner's 7-part
 * form with the seconds at 0.
 */
import type { DeadlineConfig } from './schemas';

export const SCHEDULE_FIELDS = ['minute', 'hour', 'dayOfTheMonth', 'month', 'dayOfWeek', 'year'] as const;
export type ScheduleField = (typeof SCHEDULE_FIELDS)[number];

/** The six schedule fields, or null when neither the fields nor the expression give them. */
export function scheduleFields(config: DeadlineConfig): string[] | null {
  // An empty year is any year; the five others must all be given.
  let fields: string[] = SCHEDULE_FIELDS.map((name) => config[name].trim() || (name === 'year' ? '*' : ''));
  if (fields.some((value) => value === '')) {
    fields = config.cronExpression.trim().split(/\s+/);
    if (fields.length === 5) fields.push('*');
    if (fields.length !== 6 || fields[0] === '') return null;
  }
  return fields;
}

/** Croner's 7-part pattern (seconds first, at 0), or null when the config has no schedule. */
export function cronerPattern(config: DeadlineConfig): string | null {
  const fields = scheduleFields(config);
  return fields === null ? null : `0 ${fields.join(' ')}`;
}
