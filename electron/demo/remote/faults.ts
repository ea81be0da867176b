/**
 * Programmable misbehaviour of the simulated remote, for testing a client's resilience: tests queue
 * faults, and the next matching request consumes one. `errorRate` adds seeded random transient
 * faults on top, for soak runs.
 */
import type { Rng } from '../random';

export type SimRoute = 'list' | 'dataset' | 'tasks';

export type Fault =
  /** An error answer in the usual JSON shape; `retryAfter` (seconds) sets `Retry-After`. */
  | { kind: 'status'; status: number; retryAfter?: number }
  /** No answer at all until the server closes (then the connection drops). */
  | { kind: 'hang' }
  /** 200 with an HTML body, as from a captive portal or a misrouted proxy. */
  | { kind: 'non-json' }
  /** 200 JSON of the wrong shape: `items` is not an array. */
  | { kind: 'wrong-shape' }
  /**
   * List requests that carry a `pageToken` only: the page's `nextPageToken` is that same token, so a
   * client following it loops (the first page has no token to repeat, so it waits for the second).
   */
  | { kind: 'repeat-token' }
  /** List or one dataset: one record lacks `datasetId`. */
  | { kind: 'drop-dataset-id' }
  /** The connection is destroyed without an answer (a network error for the client). */
  | { kind: 'reset' };

export interface FaultOptions {
  /** How many matching requests get the fault (default 1). */
  times?: number;
  /** Only requests to this endpoint (default: any endpoint the fault applies to). */
  route?: SimRoute;
  /** Matching requests to let through first (default 0), e.g. to break a crawl after good pages. */
  skip?: number;
}

/** Faults that only make sense on some endpoints; the others apply to all three. */
const APPLIES_TO: Partial<Record<Fault['kind'], readonly SimRoute[]>> = {
  'repeat-token': ['list'],
  'drop-dataset-id': ['list', 'dataset'],
};

interface Queued {
  fault: Fault;
  remaining: number;
  route: SimRoute | undefined;
  skip: number;
}

export class FaultQueue {
  private queue: Queued[] = [];

  inject(fault: Fault, options: FaultOptions = {}): void {
    const times = options.times ?? 1;
    const skip = options.skip ?? 0;
    if (!Number.isSafeInteger(times) || times < 1) throw new RangeError('times must be a positive integer');
    if (!Number.isSafeInteger(skip) || skip < 0) throw new RangeError('skip must be a non-negative integer');
    if (fault.kind === 'status') {
      if (!Number.isInteger(fault.status) || fault.status < 400 || fault.status > 599)
        throw new RangeError('status must be an HTTP error status from 400 to 599');
      if (fault.retryAfter !== undefined && !(Number.isInteger(fault.retryAfter) && fault.retryAfter >= 0))
        throw new RangeError('retryAfter must be a non-negative integer (seconds)');
    }
    this.queue.push({ fault, remaining: times, route: options.route, skip });
  }

  clear(): void {
    this.queue = [];
  }

  /** Requests still to be faulted. */
  get pending(): number {
    return this.queue.reduce((sum, queued) => sum + queued.remaining, 0);
  }

  /**
   * The oldest fault that applies to a request to `route`, consumed once; undefined when none. A fault
   * still letting requests through counts this one and leaves it to the faults queued after it.
   */
  take(route: SimRoute, request: { hasPageToken: boolean }): Fault | undefined {
    for (const [index, queued] of this.queue.entries()) {
      const applies =
        (queued.route === undefined || queued.route === route) &&
        (APPLIES_TO[queued.fault.kind]?.includes(route) ?? true) &&
        (queued.fault.kind !== 'repeat-token' || request.hasPageToken);
      if (!applies) continue;
      if (queued.skip > 0) {
        queued.skip -= 1;
        continue;
      }
      queued.remaining -= 1;
      if (queued.remaining === 0) this.queue.splice(index, 1);
      return queued.fault;
    }
    return undefined;
  }
}

/** A random transient fault, as an overloaded service gives them: mostly 503, some 500, some 429. */
export function transientFault(rng: Rng): Fault {
  const roll = rng.next();
  if (roll < 0.7) return { kind: 'status', status: 503 };
  if (roll < 0.9) return { kind: 'status', status: 500 };
  return { kind: 'status', status: 429, retryAfter: 1 };
}
