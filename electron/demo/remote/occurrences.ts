/**
 * Occurrences of one schedule for a clock that keeps moving. `occurrencesAt` memoizes per exact
 * instant, which suits a snapshot but not a live org: every request comes at a new "now", and
 * evaluating a pattern in a time zone costs milliseconds (a 10k-dataset org has a few hundred
 * distinct schedules). The occurrences only change when "now" reaches the next deadline, so they
 * are kept for that whole interval and then moved on by one `nextRun` per deadline passed.
 */
import type { DeadlineConfig } from '../../../shared/schemas';
import { isOccurrence, nextOccurrenceAfter, occurrencesUpTo, type Occurrences } from '../schedule';

export class ScheduleOccurrences {
  private current: Occurrences = { past: [], next: null };
  /** `current` holds for now in [from, until); nothing holds before the first computation. */
  private from = Infinity;
  private until = Infinity;

  /** `depth`: how many past occurrences to keep (the most any caller asks for). */
  constructor(
    readonly config: DeadlineConfig,
    private readonly depth: number,
  ) {}

  /** Past (oldest first, at most `depth`) and next occurrences at `now`; treat as read-only. */
  at(now: number): Occurrences {
    if (now >= this.from && now < this.until) return this.current;
    if (now >= this.until && this.moveOn(now)) return this.current;
    this.recompute(now);
    return this.current;
  }

  /** Whether `at` is an occurrence (cheap for the deadlines held, croner for others). */
  isOccurrence(at: number): boolean {
    if (this.current.next === at || this.current.past.includes(at)) return true;
    return isOccurrence(this.config, at);
  }

  private recompute(now: number): void {
    const past = occurrencesUpTo(this.config, now, this.depth);
    this.set(past, nextOccurrenceAfter(this.config, now));
  }

  /** Steps forward deadline by deadline; false when that would take longer than recomputing. */
  private moveOn(now: number): boolean {
    let { next } = this.current;
    const past = [...this.current.past];
    for (let steps = 0; next !== null && next <= now; steps++) {
      if (steps >= this.depth) return false;
      past.push(next);
      next = nextOccurrenceAfter(this.config, next);
    }
    this.set(past.slice(Math.max(0, past.length - this.depth)), next);
    return true;
  }

  private set(past: number[], next: number | null): void {
    this.current = { past, next };
    this.from = past[past.length - 1] ?? -Infinity;
    this.until = next ?? Infinity;
  }
}
