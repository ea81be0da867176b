/**
 * A webhook route (docs/decisions.md "Routes: at most once (issue 27)"): one HTTP POST of the route's
 * JSON document, with its secret header, within its timeout, redirects not followed (a redirect to
 * elsewhere would carry the secret there). The answer decides what the attempt came to: only what surely
 * did not arrive — no connection, an answer of 5xx, 429 or 408 — may be tried again.
 */
import type { WebhookRoute } from '../../shared/rules';
import { type AttemptResult, type FetchLike, type Timers, errorWords } from './attempt';

export interface WebhookDeps {
  fetch: FetchLike;
  timers: Timers;
  now: () => Date;
}

/** Network errors that mean no connection was made, so nothing was sent. */
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Answers that say the receiver did not take it and may later: worth another attempt. */
const TRY_AGAIN = (status: number): boolean => status >= 500 || status === 429 || status === 408;

/** The longest `Retry-After` heeded: a receiver cannot park a notification for a day. */
const MAX_RETRY_AFTER_MS = 60 * 60_000;

function codeOf(error: unknown): string | null {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 4; depth++) {
    const code = (at as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && NOT_CONNECTED.has(code)) return code;
    at = at.cause;
  }
  return null;
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from `now`; undefined when absent or bad. */
export function retryAfterMs(header: string | null, now: Date): number | undefined {
  if (header === null) return undefined;
  const seconds = /^\s*(\d+)\s*$/.exec(header);
  const ms = seconds ? Number(seconds[1]) * 1000 : Date.parse(header) - now.getTime();
  return Number.isFinite(ms) ? Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms)) : undefined;
}

/** POSTs `document` (JSON text) to the route; never throws. */
export async function postWebhook(
  route: WebhookRoute,
  document: string,
  deps: WebhookDeps,
): Promise<AttemptResult> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Dataset Health',
  };
  if (route.secretHeader) headers[route.secretHeader.name] = route.secretHeader.value;
  const timeout = new AbortController();
  const seconds = route.timeoutSeconds;
  const timer = deps.timers.setTimeout(() => timeout.abort(), seconds * 1000);
  try {
    const response = await deps.fetch(route.url, {
      method: 'POST',
      headers,
      body: document,
      redirect: 'manual',
      signal: timeout.signal,
    });
    // The body is not read: the status says it all, and a receiver that streams forever cannot hold us.
    await response.body?.cancel().catch(() => undefined);
    const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    if (response.status >= 200 && response.status < 300) return { kind: 'sent' };
    if (response.status >= 300 && response.status < 400)
      return {
        kind: 'failed',
        final: true,
        error: `answered ${status}, a redirect${
          response.headers.get('location') ? ` to ${response.headers.get('location')}` : ''
        }: redirects are not followed, give the address it names`,
      };
    if (TRY_AGAIN(response.status))
      return {
        kind: 'failed',
        error: `answered ${status}`,
        retryAfterMs: retryAfterMs(response.headers.get('retry-after'), deps.now()),
      };
    return { kind: 'failed', final: true, error: `refused: answered ${status}` };
  } catch (error) {
    if (timeout.signal.aborted) return { kind: 'unknown', error: `no answer within ${seconds} s` };
    // Refused before anything was sent (a header or address fetch will not take): retrying cannot help.
    if (error instanceof TypeError && error.message !== 'fetch failed')
      return { kind: 'failed', final: true, error: `could not be sent: ${error.message}` };
    const code = codeOf(error);
    if (code !== null) return { kind: 'failed', error: `could not connect: ${code}` };
    return { kind: 'unknown', error: `the connection ended without an answer: ${errorWords(error)}` };
  } finally {
    deps.timers.clearTimeout(timer);
  }
}
