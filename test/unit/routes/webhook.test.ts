/**
 * A webhook attempt against a real loopback receiver: the JSON body, its headers and secret, and what
 * each answer (or none) makes of the attempt — sent, failed and worth another try, refused for good, or
 * of unknown outcome (docs/decisions.md "Routes: at most once (issue 27)").
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookRoute } from '../../../shared/rules';
import { realTimers } from '../../../electron/routes/attempt';
import { postWebhook, retryAfterMs } from '../../../electron/routes/webhook';
import { type Answer, type Receiver, refusingUrl, startReceiver } from '../../helpers/receiver';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const deps = {
  fetch: (url: string, init: RequestInit) => fetch(url, init),
  timers: realTimers,
  now: () => NOW,
};
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(answer: (n: number) => Answer): Promise<Receiver> {
  const started = await startReceiver((_request, n) => answer(n));
  receivers.push(started);
  return started;
}

const route = (url: string, fields: Partial<WebhookRoute> = {}): WebhookRoute => ({
  id: 'channel',
  kind: 'webhook',
  name: 'Team channel',
  url,
  secretHeader: { name: 'X-Dataset-Health-Secret', value: 's3cret' },
  timeoutSeconds: 10,
  ...fields,
});

const DOCUMENT = JSON.stringify({ text: 'FAILED: Trades — Normalize failed', title: 'FAILED: Trades' });

describe('webhook attempt', () => {
  it('POSTs the document as JSON with the secret header: a 2xx is sent', async () => {
    const target = await receiver(() => ({ status: 204 }));
    expect(await postWebhook(route(target.url), DOCUMENT, deps)).toEqual({ kind: 'sent' });
    const [request] = target.requests;
    expect(request).toMatchObject({ method: 'POST', body: DOCUMENT });
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['x-dataset-health-secret']).toBe('s3cret');
  });

  it('sends no secret header when the route has none', async () => {
    const target = await receiver(() => ({ status: 200 }));
    await postWebhook(route(target.url, { secretHeader: null }), DOCUMENT, deps);
    expect(target.requests[0]!.headers['x-dataset-health-secret']).toBeUndefined();
  });

  const answers: { answer: Answer; result: object }[] = [
    { answer: { status: 500 }, result: { kind: 'failed', error: 'answered 500 Internal Server Error' } },
    { answer: { status: 503 }, result: { kind: 'failed', error: 'answered 503 Service Unavailable' } },
    {
      answer: { status: 429, headers: { 'retry-after': '120' } },
      result: { kind: 'failed', error: 'answered 429 Too Many Requests', retryAfterMs: 120_000 },
    },
    {
      answer: { status: 404 },
      result: { kind: 'failed', final: true, error: 'refused: answered 404 Not Found' },
    },
    {
      answer: { status: 401 },
      result: { kind: 'failed', final: true, error: 'refused: answered 401 Unauthorized' },
    },
    {
      answer: { status: 301, headers: { location: 'https://elsewhere.example/hook' } },
      result: { kind: 'failed', final: true, error: expect.stringContaining('redirects are not followed') },
    },
  ];
  it.each(answers)('an answer of $answer.status: $result.kind', async ({ answer, result }) => {
    const target = await receiver(() => answer);
    expect(await postWebhook(route(target.url), DOCUMENT, deps)).toEqual(result);
    // A redirect is not followed: one request in all.
    expect(target.requests).toHaveLength(1);
  });

  it('a connection refused surely did not arrive: failed, to be tried again', async () => {
    expect(await postWebhook(route(await refusingUrl()), DOCUMENT, deps)).toEqual({
      kind: 'failed',
      error: 'could not connect: ECONNREFUSED',
    });
  });

  it('a connection cut after the request may have arrived: outcome unknown', async () => {
    const target = await receiver(() => 'cut');
    const result = await postWebhook(route(target.url), DOCUMENT, deps);
    expect(result).toMatchObject({ kind: 'unknown', error: expect.stringContaining('without an answer') });
    expect(target.requests).toHaveLength(1);
  });

  it('no answer within the timeout may have arrived: outcome unknown', async () => {
    const target = await receiver(() => 'hang');
    const result = await postWebhook(route(target.url, { timeoutSeconds: 1 }), DOCUMENT, deps);
    expect(result).toEqual({ kind: 'unknown', error: 'no answer within 1 s' });
  });

  it('reads Retry-After in seconds or as a date, bounded to an hour', () => {
    expect(retryAfterMs(null, NOW)).toBeUndefined();
    expect(retryAfterMs('30', NOW)).toBe(30_000);
    expect(retryAfterMs('Sat, 21 Nov 2026 12:02:00 GMT', NOW)).toBe(120_000);
    expect(retryAfterMs('999999', NOW)).toBe(3_600_000);
    expect(retryAfterMs('soon', NOW)).toBeUndefined();
  });
});
