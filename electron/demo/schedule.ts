/**
 * Processing deadline configs and their occurrences (DESIGN.md §2, "How health is derived").
 *
 * A config's `cronExpression` is `minute hour dayOfTheMonth month dayOfWeek year`, evaluated in
 * `timezone` (IANA name; empty means UTC). Croner evaluates patterns inside the zone, so a daily
 * 06:30 Europe/London schedule stays 06:30 local across daylight-saving changes. Croner's 7-part
 * mode (`second minute hour day month weekday year`) takes the year natively, so our six fields map
 * onto it with the seconds fixed at 0. Day-of-month and day-of-week combine as in Vixie cron (OR
 * when both are restricted; a `*` in either leaves only the other).
 */
import { Cron } from 'croner';
import type { DeadlineConfig } from '../../shared/schemas';

import { SCHEDULE_FIELDS, type ScheduleField, cronerPattern } from '../../shared/schedule';

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

const UTC_NAMES = new Set(['', 'UTC', 'Etc/UTC', 'GMT', 'Etc/GMT', 'Z']);
const MAX_CACHED = 4096;
const cronCache = new Map<string, Cron | null>();

/**
 * The croner instance for a config, cached per distinct pattern and zone (construction parses the
 * pattern; evaluation in a zone is the costly part, so callers should also cache occurrences).
 * Null when the pattern does not parse. A bad zone surfaces later, as no occurrences.
 */
export function cronFor(config: DeadlineConfig): Cron | null {
  const pattern = cronerPattern(config);
  if (pattern === null) return null;
  const zone = config.timezone.trim();
  const key = `${pattern}|${zone}`;
  const cached = cronCache.get(key);
  if (cached !== undefined) return cached;
  let cron: Cron | null;
  try {
    // Fixed offset 0 is several times faster in croner than the 'UTC' zone, with the same results.
    const where = UTC_NAMES.has(zone) ? { utcOffset: 0 } : { timezone: zone };
    cron = new Cron(pattern, { ...where, mode: '7-part' });
  } catch {
    cron = null;
  }
  if (cronCache.size >= MAX_CACHED) cronCache.clear();
  cronCache.set(key, cron);
  return cron;
}

/** The last `count` occurrences at or before `now`, oldest first, as epoch milliseconds. */
export function occurrencesUpTo(config: DeadlineConfig, now: Date | number, count: number): number[] {
  const cron = cronFor(config);
  if (cron === null || count <= 0) return [];
  const nowMs = typeof now === 'number' ? now : now.getTime();
  try {
    // previousRuns excludes a run exactly at the reference; occurrences fall on whole seconds, so
    // the next whole second as reference includes one at `now` and nothing after it.
    const reference = new Date(Math.floor(nowMs / 1000) * 1000 + 1000);
    const runs = cron.previousRuns(count, reference).map((date) => date.getTime());
    return runs.filter((ms) => ms <= nowMs).reverse();
  } catch {
    return [];
  }
}

/** The first occurrence strictly after `now`, or null (a finished year, or a bad zone). */
export function nextOccurrenceAfter(config: DeadlineConfig, now: Date | number): number | null {
  const cron = cronFor(config);
  if (cron === null) return null;
  try {
    return cron.nextRun(new Date(typeof now === 'number' ? now : now.getTime()))?.getTime() ?? null;
  } catch {
    return null;
  }
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
