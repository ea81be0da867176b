/**
 * The Handoff view's "since" (docs/architecture.md#handoff) as the URL keeps it, in the grammar the CLI and
 * `/local/v1/handoff` read (shared/handoff.ts parseHandoffSince): a duration back from now (`4h`, `90m`,
 * `2d`: the engine reads it against its own clock at each load, so the window moves with time) or an
 * RFC 3339 time (a fixed start). No `since` is the default, 8 h, kept out of the URL. A link with
 * anything else is said to be wrong, naming what is allowed, and the default is shown meanwhile.
 */
import { DEFAULT_HANDOFF_HOURS } from '../../../../shared/handoffOptions';
import { parseHandoffSince } from '../../../../shared/handoffSince';
import { SINCE_FORMS } from '../../../../shared/handoffOptions';

/** The windows the chooser offers, in hours. */
export const SINCE_HOURS = [4, 8, 12, 24] as const;

export const DEFAULT_SINCE = `${DEFAULT_HANDOFF_HOURS}h`;

export interface SinceFromUrl {
  /** What the engine is asked (`8h` or an RFC 3339 time). */
  since: string;
  /** Why the URL's `since` was not used, for the user; null when it was (or there was none). */
  problem: string | null;
}

/** The `since` of a URL's query (the value as the router gives it), checked at `now`. */
export function sinceFromQuery(value: unknown, now: Date): SinceFromUrl {
  if (value === undefined || value === null || value === '') return { since: DEFAULT_SINCE, problem: null };
  const fallback = `Showing the last ${DEFAULT_HANDOFF_HOURS} hours.`;
  if (typeof value !== 'string')
    return {
      since: DEFAULT_SINCE,
      problem: `The link gives since more than once: give ${SINCE_FORMS}. ${fallback}`,
    };
  try {
    parseHandoffSince(value, now);
    return { since: value, problem: null };
  } catch (error) {
    return {
      since: DEFAULT_SINCE,
      problem: `The link's since is not valid: ${(error as Error).message}. ${fallback}`,
    };
  }
}

/** The URL's `since` for a choice; undefined for the default. */
export function sinceToQuery(since: string): string | undefined {
  return since === DEFAULT_SINCE ? undefined : since;
}

/** A duration's words ("the last 8 h", "the last 90 min"); null for a fixed time. */
export function durationWords(since: string): string | null {
  const match = /^(\d+)([mhd])$/.exec(since.trim());
  if (!match) return null;
  const unit = { m: 'min', h: 'h', d: match[1] === '1' ? 'day' : 'days' }[match[2] as 'm' | 'h' | 'd'];
  return `Last ${Number(match[1]).toLocaleString()} ${unit}`;
}

/** A date-time picker's value (ms) as the URL's `since`: RFC 3339 UTC, to the second. */
export function sinceOfPicked(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
