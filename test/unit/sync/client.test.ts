/** The remote client's rules: backoff, Retry-After, and which answers become which errors. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY,
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
