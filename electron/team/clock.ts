/**
 * A hybrid logical clock (Kulkarni et al., 2014) for the team's operations (docs/decisions.md "On call
 * as a team: operations"): each reading is the wall clock's millisecond and a counter, written
 * `2026-11-29T12:45:14.123Z#0003`, so readings sort as text and a person can read them. A member's
 * clock never goes back, and after it has seen another member's operation its next reading is later,
 * so an acknowledgement made after reading a colleague's sorts after it even when the two computers'
 * clocks disagree by seconds.
 *
 * Hand-written (sixty lines): the npm HLC packages (such as @consento/hlc, last released years ago)
 * encode readings as bigints and bytes, where these must be text that sorts and reads as a time.
 */

import { isTime } from '../../shared/team';

/** Readings from further ahead than this are ordered by, but not followed: one computer with its clock set a
 * day ahead must not drag every member's clock along. */
export const MAX_AHEAD_MS = 60 * 60 * 1000;
const MAX_COUNTER = 9999;

export interface ClockReading {
  /** Milliseconds since the epoch. */
  wall: number;
  counter: number;
}

export function formatReading({ wall, counter }: ClockReading): string {
  return `${new Date(wall).toISOString()}#${String(counter).padStart(4, '0')}`;
}

/** A reading from its text, or null when it is not one. */
export function parseReading(text: string): ClockReading | null {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)#(\d{4})$/.exec(text);
  if (match === null) return null;
  if (!isTime(match[1]!)) return null;
  return { wall: Date.parse(match[1]!), counter: Number(match[2]) };
}

const later = (a: ClockReading, b: ClockReading): boolean =>
  a.wall > b.wall || (a.wall === b.wall && a.counter > b.counter);

export class HybridClock {
  private last: ClockReading;

  /** `now`: the wall clock (injected); `last`: the latest reading this member made or saw, if any. */
  constructor(
    private readonly now: () => number,
    last: string | null = null,
  ) {
    this.last = (last === null ? null : parseReading(last)) ?? { wall: 0, counter: 0 };
  }

  /** A reading for a new operation: later than every reading this clock has made or seen. */
  next(): string {
    const wall = this.now();
    if (wall > this.last.wall) this.last = { wall, counter: 0 };
    else if (this.last.counter < MAX_COUNTER)
      this.last = { wall: this.last.wall, counter: this.last.counter + 1 };
    // Ten thousand readings in one millisecond: the clock runs a millisecond ahead of the wall.
    else this.last = { wall: this.last.wall + 1, counter: 0 };
    return formatReading(this.last);
  }

  /** Takes in another member's reading, so that this member's next one is later. */
  observe(text: string): void {
    const seen = parseReading(text);
    if (seen === null || seen.wall > this.now() + MAX_AHEAD_MS) return;
    if (later(seen, this.last)) this.last = seen;
  }

  /** The latest reading made or seen (to keep across restarts). */
  get latest(): string {
    return formatReading(this.last);
  }
}
