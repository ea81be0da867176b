/**
 * One attempt at delivering a notification to a route, and what the deliverer needs from outside to make
 * it — time, randomness, the network, processes, timers — passed in so tests give their own (no module
 * mocking). What an attempt can come to decides the promise of docs/decisions.md "Routes: at most once
 * (issue 27)": only an attempt that surely did not arrive is tried again.
 */
import type { spawn } from 'node:child_process';

export type AttemptResult =
  /** The route took it: a 2xx answer, a hook that exited 0. */
  | { kind: 'sent' }
  /**
   * It surely did not arrive or was refused (connection refused, an answer of 5xx or 429, a hook that
   * exited non-zero): tried again later unless `final` (retrying cannot help: a 404, a redirect).
   */
  | { kind: 'failed'; error: string; final?: boolean; retryAfterMs?: number }
  /** It may have arrived (no answer in time, the connection cut, the hook killed): never sent again by itself. */
  | { kind: 'unknown'; error: string };

/** The `fetch` the webhooks use (the global one by default). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** The `spawn` the command hooks use (node:child_process's by default). */
export type SpawnLike = typeof spawn;

/** Timers for timeouts and the deliverer's schedule (the global ones by default). */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    // A scheduled look at the outbox never keeps a stopping process alive.
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Words for an error thrown by the network or a process: its message, and its cause's when it has one. */
export function errorWords(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : null;
  return cause && cause !== error.message ? `${error.message} (${cause})` : error.message;
}
