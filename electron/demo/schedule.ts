/**
 * Processing deadline configs for the demo and its occurrences (docs/architecture.md#how-health-is-derived):
 * configs built from schedule fields, and occurrences memoized per instant. A config's schedule is read
 * as shared/schedule.ts says and evaluated by shared/deadlines.ts (croner, in the config's zone).
 */
import type { DeadlineConfig } from '../../shared/schemas';

import { SCHEDULE_FIELDS, type ScheduleField, cronerPattern } from '../../shared/schedule';
import { cronFor, nextOccurrenceAfter, occurrencesUpTo } from '../../shared/deadlines';

// The deadline functions live in shared/ (the engine's deadline clock uses them too).
export { cronFor, nextOccurrenceAfter, occurrencesUpTo };

/** Each schedule field is a number or `*`; missing fields default to `*`, the zone to UTC (""). */
export type ScheduleInput = Partial<Record<ScheduleField, number | '*'>> & { timezone?: string };

/** A complete deadline config with `cronExpression` built from the six schedule fields. */
export function makeDeadlineConfig(input: ScheduleInput): DeadlineConfig {
  const field = (name: ScheduleField): string => String(input[name] ?? '*');
  const config = {
    minute: field('minute'),
    hour: field('hour'),
    dayOfTheMonth: field('dayOfTheMonth'),
    month: field('month'),
    dayOfWeek: field('dayOfWeek'),
    year: field('year'),
    timezone: input.timezone ?? '',
    cronExpression: '',
  };
  config.cronExpression = SCHEDULE_FIELDS.map((name) => config[name]).join(' ');
  return config;
}

/** Whether an instant is an occurrence of the config's schedule. */
export function isOccurrence(config: DeadlineConfig, at: Date | number): boolean {
  const ms = typeof at === 'number' ? at : at.getTime();
  return occurrencesUpTo(config, ms, 1)[0] === ms;
}

/** Past and next occurrences of one schedule at one instant (what a dataset needs). */
export interface Occurrences {
  /** At or before `now`, oldest first, epoch ms. */
  past: number[];
  /** First occurrence after `now`, epoch ms, or null. */
  next: number | null;
}

const MAX_CACHED = 4096;
const occurrenceCache = new Map<string, Occurrences>();

/**
 * Past and next occurrences, memoized: datasets share few distinct schedules, and evaluating a
 * pattern in a time zone costs milliseconds, so a snapshot (or a test suite using one `now`)
 * computes each schedule once. Treat the result as read-only.
 */
export function occurrencesAt(config: DeadlineConfig, now: Date | number, count: number): Occurrences {
  const nowMs = typeof now === 'number' ? now : now.getTime();
  const key = `${nowMs}|${count}|${cronerPattern(config)}|${config.timezone}`;
  let found = occurrenceCache.get(key);
  if (found === undefined) {
    found = { past: occurrencesUpTo(config, nowMs, count), next: nextOccurrenceAfter(config, nowMs) };
    if (occurrenceCache.size >= MAX_CACHED) occurrenceCache.clear();
    occurrenceCache.set(key, found);
  }
  return found;
}
