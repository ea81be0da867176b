/** The local API's rate limit per key: its own file, so `serve --help` loads no Fastify. */
export interface RateLimitOptions {
  /** Sustained requests per second per key. */
  perSecond: number;
  /** Requests a key may send at once before being limited. */
  burst: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { perSecond: 100, burst: 200 };
