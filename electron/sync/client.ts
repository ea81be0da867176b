/**
 * The remote's three GET endpoints over HTTP (docs/architecture.md#faults): a timeout on every request,
 * retries with exponential backoff and jitter on network errors, 5xx and 429 (honouring Retry-After)
 * within a time budget per request (about two minutes, timeouts included), and errors that say what
 * went wrong in words an on-call engineer can act on. Time, randomness, fetch and sleep are injected so
 * tests control them without waiting.
 */
import pRetry from 'p-retry';
import { utf8Text } from './pageText';
import { SLICE_MS } from './slices';

export type FetchLike = (
  url: string,
  init: { headers: Record<string, string>; signal: AbortSignal },
) => Promise<Pick<Response, 'status' | 'headers' | 'text' | 'body'>>;

/** Takes a 2xx body as it arrives, chunk by chunk, in the bytes received (see pageText.ts). */
export interface BodySink {
  push(bytes: Uint8Array): void;
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * unauthorized: the key was refused (401/403) — retrying cannot help; rejected: the remote refused the
 * request (400, other 4xx); not-found: 404; transient: worth retrying (network, timeout, 5xx, 429);
 * bad-response: an answer we cannot use (not JSON, wrong shape, a repeated page token); aborted: we stopped.
 */
export type RemoteErrorKind =
  'unauthorized' | 'rejected' | 'not-found' | 'transient' | 'bad-response' | 'aborted';

export class RemoteError extends Error {
  constructor(
    readonly kind: RemoteErrorKind,
    message: string,
    readonly status?: number,
    /** From Retry-After (already capped), when the remote sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'RemoteError';
  }
}

export interface RetryPolicy {
  /** Retries after the first attempt (docs/architecture.md#faults: at most 4). */
  retries: number;
  /** First backoff; each further one doubles (4 s, 8 s, 16 s, 32 s: about a minute in all). */
  baseDelayMs: number;
  /** Longest wait a Retry-After may ask for. */
  maxRetryAfterMs: number;
  /**
   * Time a request may take in all, attempts (timeouts included) and waits: no retry starts that could
   * not reach its timeout within it (default DEFAULT_MAX_ELAPSED_MS).
   */
  maxElapsedMs?: number;
}

/** docs/architecture.md#faults: a failing request gives up within about two minutes, time spent on timeouts included. */
export const DEFAULT_MAX_ELAPSED_MS = 120_000;
export const DEFAULT_RETRY: RetryPolicy = {
  retries: 4,
  baseDelayMs: 4_000,
  maxRetryAfterMs: 60_000,
  maxElapsedMs: DEFAULT_MAX_ELAPSED_MS,
};
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface RemoteClientOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: FetchLike;
  sleep?: Sleep;
  /** In [0, 1): jitter of the backoff. */
  random?: () => number;
  /** Epoch ms (Retry-After given as a date). */
  now?: () => number;
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** Called before each wait for a retry (progress lines, logs, tests). */
  onRetry?: (info: { attempt: number; delayMs: number; error: RemoteError }) => void;
}

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Backoff before retry `n` (1-based): base × 2^(n-1), jittered to between ½ and 1½ of that. */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number): number {
  return Math.round(policy.baseDelayMs * 2 ** (retry - 1) * (0.5 + random()));
}

/** Retry-After in seconds or as an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number, maxMs: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value.trim());
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - nowMs;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(0, ms), maxMs);
}

export class RemoteClient {
  readonly host: string;
  private readonly fetch: FetchLike;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;

  constructor(private readonly options: RemoteClientOptions) {
    this.host = new URL(options.baseUrl).host;
    this.fetch = options.fetch ?? ((url, init) => fetch(url, init));
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retry = options.retry ?? DEFAULT_RETRY;
  }

  /** The same remote with other options (a shorter retry policy for optional requests). */
  with(options: Partial<RemoteClientOptions>): RemoteClient {
    return new RemoteClient({ ...this.options, ...options });
  }

  /** GETs `path` with `query` and returns the parsed JSON body, retrying transient failures. */
  async getJson(path: string, query: [string, string][], signal?: AbortSignal): Promise<unknown> {
    const body = await this.getStreamed(path, query, signal, () => {
      const chunks: Uint8Array[] = [];
      return { chunks, push: (chunk: Uint8Array) => void chunks.push(chunk) };
    });
    return parseJson(utf8Text(Buffer.concat(body.chunks)), this.host);
  }

  /**
   * GETs `path` with `query` and feeds a 2xx body, as it arrives, to a sink made for each attempt
   * (a retried request starts a fresh one); returns the sink of the attempt that succeeded.
   */
  async getStreamed<S extends BodySink>(
    path: string,
    query: [string, string][],
    signal: AbortSignal | undefined,
    newSink: () => S,
  ): Promise<S> {
    const url = new URL(this.options.baseUrl + path);
    for (const [name, value] of query) url.searchParams.append(name, value);
    // Time spent: attempts as measured, plus the waits asked for (an injected sleep may take none).
    // p-retry's maxRetryTime reads the clock only, so it would not see injected waits.
    const budgetMs = this.retry.maxElapsedMs ?? DEFAULT_MAX_ELAPSED_MS;
    let spentMs = 0;
    let attempts = 0;
    let outOfTime = false;
    const timed = async (): Promise<S> => {
      const started = performance.now();
      attempts++;
      try {
        return await this.attempt(url.toString(), signal, newSink);
      } finally {
        spentMs += performance.now() - started;
      }
    };
    try {
      return await pRetry(timed, {
        retries: this.retry.retries,
        // p-retry counts and stops; the waits are ours (Retry-After, injected sleep), so its own are zero.
        minTimeout: 0,
        signal,
        shouldRetry: async ({ error, retriesConsumed }) => {
          if (!(error instanceof RemoteError) || error.kind !== 'transient') return false;
          const delayMs = error.retryAfterMs ?? backoffMs(retriesConsumed + 1, this.retry, this.random);
          if (spentMs + delayMs + this.timeoutMs > budgetMs) {
            outOfTime = true;
            return false;
          }
          this.options.onRetry?.({ attempt: retriesConsumed + 1, delayMs, error });
          await this.sleep(delayMs, signal);
          spentMs += delayMs;
          return true;
        },
      });
    } catch (error) {
      if (!outOfTime || !(error instanceof RemoteError)) throw error;
      throw new RemoteError(
        error.kind,
        `${error.message}; gave up after ${attempts} attempts in ${Math.round(spentMs / 1000)} s`,
        error.status,
        error.retryAfterMs,
      );
    }
  }

  private async attempt<S extends BodySink>(
    url: string,
    signal: AbortSignal | undefined,
    newSink: () => S,
  ): Promise<S> {
    signal?.throwIfAborted();
    // The timeout covers waiting: for the answer to begin, then between two chunks of it. A large page
    // on a slow link may take longer than that in all, as long as it keeps coming.
    const timeout = new AbortController();
    let timedOut: 'answer' | 'body' | null = null;
    let timer: NodeJS.Timeout | undefined;
    const arm = (phase: 'answer' | 'body'): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = phase;
        timeout.abort(new Error('timeout'));
      }, this.timeoutMs);
    };
    const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    let status: number;
    let text = '';
    let retryAfter: string | null;
    const sink = newSink();
    arm('answer');
    try {
      const response = await this.fetch(url, {
        headers: { Authorization: `Bearer ${this.options.apiKey}`, Accept: 'application/json' },
        signal: combined,
      });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      arm('body');
      if (status >= 200 && status < 300 && response.body) {
        // Handed on chunk by chunk: a 10 MB page never becomes one long synchronous step. Chunks
        // already received arrive without a turn of the event loop in between: yield now and then.
        let sliceStart = performance.now();
        for await (const bytes of response.body) {
          arm('body');
          sink.push(bytes);
          if (performance.now() - sliceStart > SLICE_MS) {
            await new Promise((resolve) => setImmediate(resolve));
            sliceStart = performance.now();
          }
        }
      } else {
        text = await response.text();
      }
    } catch (error) {
      if (signal?.aborted) throw new RemoteError('aborted', 'sync stopped');
      if (timedOut === 'answer') {
        throw new RemoteError('transient', `${this.host} did not answer within ${this.timeoutMs / 1000} s`);
      }
      if (timedOut === 'body') {
        throw new RemoteError(
          'transient',
          `${this.host} stopped sending its answer for ${this.timeoutMs / 1000} s`,
        );
      }
      throw new RemoteError('transient', `cannot reach ${this.host}: ${networkReason(error)}`);
    } finally {
      clearTimeout(timer);
    }
    if (status >= 200 && status < 300) {
      if (text !== '') sink.push(Buffer.from(text));
      return sink;
    }
    throw this.statusError(status, text, retryAfter);
  }

  private statusError(status: number, text: string, retryAfter: string | null): RemoteError {
    const said = remoteMessage(text);
    const detail = said ? `: ${said}` : '';
    if (status === 401 || status === 403) {
      return new RemoteError(
        'unauthorized',
        `API key rejected by ${this.host} (HTTP ${status})${detail}`,
        status,
      );
    }
    if (status === 429 || status >= 500) {
      const waitMs = parseRetryAfter(
        retryAfter,
        (this.options.now ?? Date.now)(),
        this.retry.maxRetryAfterMs,
      );
      return new RemoteError('transient', `${this.host} answered HTTP ${status}${detail}`, status, waitMs);
    }
    if (status === 404) return new RemoteError('not-found', `${this.host} answered 404${detail}`, status);
    return new RemoteError('rejected', `${this.host} refused the request (HTTP ${status})${detail}`, status);
  }
}

export function parseJson(text: string, host: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const start = text.trim().slice(0, 60).replace(/\s+/g, ' ');
    throw new RemoteError('bad-response', `${host} answered with something that is not JSON: "${start}…"`);
  }
}

/** The `message` of a JSON error body, shortened; null when there is none. */
function remoteMessage(text: string): string | null {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    // One line: the CLI prints failures on one line, the window in a banner.
    return typeof body.message === 'string' ? body.message.replace(/\s+/g, ' ').trim().slice(0, 200) : null;
  } catch {
    return null;
  }
}

/** undici wraps the socket error in `cause`: that one says what happened (ECONNREFUSED, …). */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return cause.code;
  if (cause?.message) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
