/**
 * The remote simulator's time. A simulated org changes as its clock advances; the clock reads real
 * time only through an injected `now`, so tests pin it (or set it directly with a manual clock) and
 * the app's built-in demo can run it fast to show a day of deliveries in minutes.
 */

/** Simulated epoch milliseconds. */
export interface SimClock {
  now(): number;
}

export interface SimClockOptions {
  /** Real epoch ms (injected: `Date.now` in production, a fake in tests). */
  now: () => number;
  /** Simulated milliseconds per real millisecond (default 1). */
  speed?: number;
  /** How far behind real time the simulation starts (default 0). */
  lagMs?: number;
}

/**
 * Simulated time `t0 - lagMs + speed × (t - t0)`, where t0 is real time at creation. With a lag the
 * simulation may run fast to catch up but never passes real time (from then on it keeps pace with
 * it): a remote must not report deliveries from the future. Without a lag and with speed > 1 it
 * runs ahead, for demos that want a day to pass in minutes.
 */
export function createSimClock(options: SimClockOptions): SimClock {
  const speed = options.speed ?? 1;
  const lagMs = options.lagMs ?? 0;
  if (!(Number.isFinite(speed) && speed > 0)) throw new RangeError('speed must be a positive number');
  if (!(Number.isFinite(lagMs) && lagMs >= 0)) throw new RangeError('lagMs must be a non-negative number');
  const realNow = options.now;
  const t0 = realNow();
  return {
    now() {
      const t = realNow();
      const simulated = t0 - lagMs + speed * (t - t0);
      return Math.floor(lagMs > 0 ? Math.min(simulated, t) : simulated);
    },
  };
}

/** A clock tests move by hand. */
export interface ManualClock extends SimClock {
  set(ms: number): void;
  advance(ms: number): void;
}

export function createManualClock(startMs: number): ManualClock {
  let current = startMs;
  return {
    now: () => current,
    set(ms) {
      current = ms;
    },
    advance(ms) {
      current += ms;
    },
  };
}
