/**
 * The deadline clock (docs/architecture.md#deadlines): every distinct schedule's previous deadline and the deadlines
 * ahead of it, computed once per schedule (datasets share few: a 10k org has some hundreds) and moved
 * on as deadlines pass — never per dataset or per look. Croner evaluates each schedule in its zone
 * (shared/deadlines.ts), so daylight-saving changes are its to get right, and the property tests hold
 * this clock to croner's own answers. A schedule that cannot be read is kept with its reason.
 */
import {
  nextOccurrenceAfter,
  occurrencesBetween,
  occurrencesUpTo,
  scheduleProblem,
  scheduleZone,
} from '../../shared/deadlines';
import { cronerPattern } from '../../shared/schedule';
import type { DeadlineConfig } from '../../shared/schemas';

/** Deadlines a schedule keeps ahead at most (a schedule every minute for a week is 10,080). */
export const MAX_AHEAD = 20_000;
const MAX_SCHEDULES = 50_000;

/** One schedule's place in time. */
export interface ScheduleDeadlines {
  /** Why its deadlines cannot be worked out; null when they can. */
  problem: string | null;
  /** The zone it is read in ("UTC" for none). */
  timeZone: string;
  /** The newest deadline at or before the clock's last look, epoch ms; null: none. */
  previous: number | null;
  /** The first deadline after it; null: none (a finished year, or a problem). */
  next: number | null;
}

interface Entry extends ScheduleDeadlines {
  config: DeadlineConfig;
  /** Known deadlines after `previous`, oldest first, from index `start` (the rest have passed). */
  ahead: number[];
  start: number;
  /** Every deadline up to here is in `ahead`. */
  until: number;
  /** No deadline after the last in `ahead`. */
  finished: boolean;
}

const keys = new WeakMap<DeadlineConfig, string>();

/**
 * The key of a schedule: its croner pattern and zone (configs that read alike share one entry). Kept per
 * config object: a history's datasets share their config objects, so a 10k org reads some hundreds.
 */
export function scheduleKey(config: DeadlineConfig): string {
  let key = keys.get(config);
  if (key === undefined) {
    key = `${cronerPattern(config) ?? config.cronExpression.trim()}|${config.timezone.trim()}`;
    keys.set(config, key);
  }
  return key;
}

export class DeadlineClock {
  private readonly entries = new Map<string, Entry>();

  /** The schedule's deadlines at `now`: computed on first sight, moved on when its next one has passed. */
  at(config: DeadlineConfig, now: number): ScheduleDeadlines {
    const key = scheduleKey(config);
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = this.start(config, now);
      if (this.entries.size >= MAX_SCHEDULES) this.entries.clear();
      this.entries.set(key, entry);
    } else if (entry.next !== null && entry.next <= now) {
      this.pass(entry, now);
    } else if (entry.previous !== null && entry.previous > now) {
      // The clock went back (a test, or the system clock set back): start this schedule afresh.
      Object.assign(entry, this.start(config, now));
    }
    return entry;
  }

  /** The schedule's deadlines in (now, now + span], oldest first, at most `limit`. */
  ahead(config: DeadlineConfig, now: number, span: number, limit: number): number[] {
    const entry = this.at(config, now) as Entry;
    const to = now + span;
    const room = MAX_AHEAD - (entry.ahead.length - entry.start);
    if (entry.problem === null && !entry.finished && entry.until < to && room > 0) {
      const more = occurrencesBetween(entry.config, entry.until, to, room);
      entry.ahead.push(...more);
      // A read stopped by the cap covers only up to its last deadline: the rest is read when asked.
      entry.until = more.length === room ? more[more.length - 1]! : to;
    }
    const found: number[] = [];
    for (let i = entry.start; i < entry.ahead.length && found.length < limit; i += 1) {
      const at = entry.ahead[i]!;
      if (at > to) break;
      if (at > now) found.push(at);
    }
    return found;
  }

  /** The schedule's deadlines in (from, to] — the past included — at most `limit`. */
  between(config: DeadlineConfig, from: number, to: number, limit: number): number[] {
    return occurrencesBetween(config, from, to, limit);
  }

  /** The soonest `next` of every schedule seen (when the clock must look again), or null. */
  soonest(): number | null {
    let soonest: number | null = null;
    for (const entry of this.entries.values())
      if (entry.next !== null && (soonest === null || entry.next < soonest)) soonest = entry.next;
    return soonest;
  }

  private start(config: DeadlineConfig, now: number): Entry {
    const problem = scheduleProblem(config);
    const entry: Entry = {
      config,
      problem,
      timeZone: scheduleZone(config),
      previous: null,
      next: null,
      ahead: [],
      start: 0,
      until: now,
      finished: problem !== null,
    };
    if (problem !== null) return entry;
    entry.previous = occurrencesUpTo(config, now, 1)[0] ?? null;
    const next = nextOccurrenceAfter(config, now);
    if (next === null) entry.finished = true;
    else {
      entry.ahead.push(next);
      entry.until = next;
    }
    entry.next = next;
    return entry;
  }

  /** Moves past every deadline at or before `now`. */
  private pass(entry: Entry, now: number): void {
    while (true) {
      while (entry.start < entry.ahead.length && entry.ahead[entry.start]! <= now) {
        entry.previous = entry.ahead[entry.start]!;
        entry.start += 1;
      }
      if (entry.start < entry.ahead.length || entry.finished) break;
      // Every known deadline passed: find the next one after the newest known point.
      const from = Math.max(entry.until, entry.previous ?? -Infinity);
      if (now - from > 7 * 86_400_000) {
        // Long asleep (a laptop lid): ask croner directly rather than walking every deadline.
        Object.assign(entry, this.start(entry.config, now));
        return;
      }
      const next = nextOccurrenceAfter(entry.config, from);
      if (next === null) entry.finished = true;
      else entry.ahead.push(next);
      entry.until = next ?? entry.until;
    }
    if (entry.start > 1024) {
      entry.ahead = entry.ahead.slice(entry.start);
      entry.start = 0;
    }
    entry.next = entry.ahead[entry.start] ?? null;
  }
}
