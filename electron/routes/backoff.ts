/**
 * When a route is tried again after a failed attempt (docs/decisions.md "Routes: at most once (issue
 * 27)"): exponential backoff with jitter, computed from the attempts a row has counted. The schedule is
 * a time stored on the row rather than a wait in memory (p-retry's loop), so it holds across restarts;
 * the jitter comes from the injected random, so tests know each delay.
 */

export interface RetryPolicy {
  /** Attempts in all before a row is dead. */
  maxAttempts: number;
  /** The wait after the first failed attempt; each further one doubles. */
  firstDelayMs: number;
  /** No wait is longer. */
  maxDelayMs: number;
}

/** 30 s, 1, 2, 4, 8 min: a receiver down for about a quarter of an hour still gets it. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  firstDelayMs: 30_000,
  maxDelayMs: 15 * 60_000,
};

/** The wait after `attempts` failed attempts (1-based): first × 2^(n-1), jittered to ½–1½ of it, capped. */
export function retryDelayMs(attempts: number, policy: RetryPolicy, random: () => number): number {
  const base = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(Math.min(policy.maxDelayMs, base * (0.5 + random())));
}
