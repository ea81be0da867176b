/** The remote client's rules: backoff, Retry-After, and which answers become which errors. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_MS,
  type FetchLike,
  RemoteClient,
  RemoteError,
  backoffMs,
  parseRetryAfter,
} from '../../../electron/sync/client';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A tiny real server answering each request with the next of `answers`. */
async function answering(
  answers: { status: number; body: string; headers?: Record<string, string> }[],
): Promise<string> {
  server = createServer((_request, response) => {
    const answer = answers.shift() ?? { status: 500, body: '' };
    response.writeHead(answer.status, answer.headers).end(answer.body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

const client = (baseUrl: string, sleeps: number[] = []) =>
  new RemoteClient({
    baseUrl,
    apiKey: 'k',
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    now: () => 0,
  });

describe('backoff and Retry-After', () => {
  it('doubles from 4 s, jittered between ½ and 1½ of that', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, DEFAULT_RETRY, () => 0.5))).toEqual([
      4000, 8000, 16000, 32000,
    ]);
    expect(backoffMs(1, DEFAULT_RETRY, () => 0)).toBe(2000);
    expect(backoffMs(1, DEFAULT_RETRY, () => 0.999999)).toBe(6000);
  });

  it.each([
    ['7', 7000],
    ['0', 0],
    ['3600', 60_000],
    ['Thu, 01 Jan 1970 00:00:30 GMT', 30_000],
    ['soon', undefined],
    [null, undefined],
  ])('Retry-After %j waits %j ms', (value, expected) => {
    expect(parseRetryAfter(value, 0, 60_000)).toBe(expected);
  });
});

describe('answers and errors', () => {
  it.each([
    [401, 'unauthorized', /API key rejected by 127\.0\.0\.1:\d+ \(HTTP 401\): bad key/],
    [403, 'unauthorized', /API key rejected/],
    [404, 'not-found', /answered 404/],
    [400, 'rejected', /refused the request \(HTTP 400\): bad key/],
  ] as const)('HTTP %i is %s, not retried', async (status, kind, message) => {
    const sleeps: number[] = [];
    const url = await answering([{ status, body: JSON.stringify({ message: 'bad key' }) }]);
    const error = await client(url, sleeps)
      .getJson('/x', [])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteError);
    expect(error).toMatchObject({ kind, status });
    expect((error as Error).message).toMatch(message);
    expect(sleeps).toEqual([]);
  });

  it('sends the bearer key and the query, and parses JSON', async () => {
    let seen: { url?: string; auth?: string } = {};
    server = createServer((request, response) => {
      seen = { url: request.url, auth: request.headers.authorization };
      response.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await client(url).getJson('/p', [['filter', 'a.in.(B,C)']])).toEqual({ ok: true });
    expect(seen).toEqual({ url: '/p?filter=a.in.%28B%2CC%29', auth: 'Bearer k' });
  });

  it('a refused connection is transient, retried 4 times, and names the cause', async () => {
    const url = await answering([]);
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    const sleeps: number[] = [];
    const error = await client(url, sleeps)
      .getJson('/x', [])
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: 'transient',
      message: expect.stringMatching(/cannot reach 127\.0\.0\.1:\d+: ECONNREFUSED/),
    });
    expect(sleeps).toHaveLength(4);
  });

  it('stopping aborts at once, without retrying', async () => {
    const url = await answering([]);
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const error = await client(url)
      .getJson('/x', [], controller.signal)
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/stop/);
  });
});

describe('a remote that accepts requests and never answers', () => {
  /** A fetch that waits until the client's timeout aborts it, as a silent remote would. */
  const silent =
    (calls: string[]): FetchLike =>
    (url, init) =>
      new Promise((_resolve, reject) => {
        calls.push(url);
        init.signal.addEventListener('abort', () => reject(init.signal.reason as Error), { once: true });
      });

  afterEach(() => void vi.useRealTimers());

  it('with the production defaults (30 s timeout, 4 retries), gives up within two minutes, not 3.5', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const calls: string[] = [];
    const started = performance.now();
    const result = new RemoteClient({
      baseUrl: 'https://remote.example',
      apiKey: 'k',
      fetch: silent(calls),
      random: () => 0.5,
    })
      .getJson('/x', [])
      .catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    const error = await result;
    const elapsed = performance.now() - started;
    // 30 s + 4 s + 30 s + 8 s + 30 s: a fourth try (16 s + 30 s more) could not end within the budget.
    expect(elapsed).toBe(102_000);
    expect(calls).toHaveLength(3);
    expect(error).toMatchObject({ kind: 'transient' });
    expect((error as Error).message).toMatch(/did not answer within 30 s; gave up after 3 attempts in 102 s/);
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
    expect(DEFAULT_RETRY).toMatchObject({ retries: 4, maxElapsedMs: 120_000 });
  });

  it('over a real connection with shortened timeouts, the budget counts timeouts and waits', async () => {
    const seen: string[] = [];
    server = createServer((request) => void seen.push(request.url ?? ''));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const sleeps: number[] = [];
    const error = await new RemoteClient({
      baseUrl: url,
      apiKey: 'k',
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0.5,
      timeoutMs: 300,
      retry: { retries: 4, baseDelayMs: 50, maxRetryAfterMs: 60_000, maxElapsedMs: 1_500 },
    })
      .getJson('/x', [])
      .catch((e: unknown) => e);
    server.closeAllConnections();
    // 300 + 50 + 300 + 100 + 300 ms spent; another try (200 + 300 ms) would end past 1.5 s. (A third try
    // is still made when the first two take up to 525 ms each: room for a loaded machine.)
    expect(seen).toHaveLength(3);
    expect(sleeps).toEqual([50, 100]);
    expect(error).toMatchObject({ kind: 'transient' });
    expect((error as Error).message).toMatch(/did not answer within 0\.3 s; gave up after 3 attempts/);
  });
});
