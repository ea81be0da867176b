/**
 * Each fault of docs/architecture.md#faults, injected in turn into the simulated remote: the outcome, the retries (the
 * waits are recorded, never slept) and that a failed attempt leaves the stored data exactly as it was.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, backoffMs } from '../../../electron/sync/client';
import { recentSyncRuns } from '../../../electron/store/tables/syncRuns';
import { START, allRecords, byId, closeBenches, syncBench, type SyncBench } from '../../helpers/sync';

afterEach(closeBenches);

const HOUR = 3_600_000;
/** The waits of four retries with the bench's jitter (random() = 0.5): 4, 8, 16, 32 s. */
const BACKOFF = [1, 2, 3, 4].map((n) => backoffMs(n, DEFAULT_RETRY, () => 0.5));

/** A bench with one good crawl behind it and a remote that has moved on since. */
async function syncedBench(options: Parameters<typeof syncBench>[0] = {}): Promise<SyncBench> {
  const bench = await syncBench(options);
  const first = await bench.runner.runCycle('crawl');
  expect(first.outcome).toBe('ok');
  bench.clock.advance(6 * HOUR);
  return bench;
}

/** Requests the simulator saw from now on. */
function requestsFrom(bench: SyncBench): () => { url: string; status: number }[] {
  const start = bench.simulator.requests.length;
  return () => bench.simulator.requests.slice(start);
}

describe('sync faults', () => {
  it.each([
    ['503', { kind: 'status', status: 503 }],
    ['500', { kind: 'status', status: 500 }],
    ['a dropped connection', { kind: 'reset' }],
  ] as const)('%s is retried after a backoff, and the crawl then succeeds', async (_name, fault) => {
    const bench = await syncedBench();
    bench.simulator.faults.inject(fault);
    const seen = requestsFrom(bench);
    const event = await bench.runner.runCycle('crawl');
    expect(event.outcome).toBe('ok');
    expect(bench.sleeps).toEqual([BACKOFF[0]]);
    expect(seen()[0]!.url).toBe(seen()[1]!.url);
    expect(byId(await allRecords(bench.local))).toEqual(byId(await allRecords(bench.remote)));
  });

  it('429 waits as long as Retry-After says (capped at 60 s)', async () => {
    const bench = await syncedBench();
    bench.simulator.faults.inject({ kind: 'status', status: 429, retryAfter: 7 });
    bench.simulator.faults.inject({ kind: 'status', status: 429, retryAfter: 3600 });
    const event = await bench.runner.runCycle('crawl');
    expect(event.outcome).toBe('ok');
    expect(bench.sleeps).toEqual([7_000, 60_000]);
  });

  it('a request with no answer times out and is retried', async () => {
    const bench = await syncedBench({ runner: { timeoutMs: 500 } });
    bench.simulator.faults.inject({ kind: 'hang' });
    const event = await bench.runner.runCycle('crawl');
    expect(event.outcome).toBe('ok');
    expect(bench.sleeps).toEqual([BACKOFF[0]]);
  });

  it('a remote that stops answering on the second page fails the attempt within the time budget', async () => {
    // The production rule scaled down (30 s, 4 s, 2 min): 0.3 s timeouts, waits from 50 ms, 1.5 s in all;
    // a third try still fits when the first two take up to 525 ms each (a loaded machine).
    const retry = { retries: 4, baseDelayMs: 50, maxRetryAfterMs: 60_000, maxElapsedMs: 1_500 };
    const bench = await syncedBench({ simulator: { maxPageSize: 50 }, runner: { timeoutMs: 300, retry } });
    const before = bench.snapshot();
    // List requests: 1000 refused (400), the first page of 50, then the second page hangs every time.
    bench.simulator.faults.inject({ kind: 'hang' }, { route: 'list', skip: 2, times: 1000 });
    const seen = requestsFrom(bench);
    const event = await bench.runner.runCycle('crawl');
    expect(event.outcome).toBe('failed');
    expect(event.error).toMatch(/did not answer within 0\.3 s; gave up after 3 attempts/);
    expect(seen().filter((r) => r.url.includes('pageToken='))).toHaveLength(3);
    expect(bench.sleeps).toEqual([50, 100]);
    expect(bench.snapshot()).toBe(before);
    expect(bench.runner.state.phase).toBe('offline');
  });

  it('gives up after 4 retries with growing waits, state offline, stored data unchanged', async () => {
    const bench = await syncedBench();
    const before = bench.snapshot();
    bench.simulator.faults.inject({ kind: 'status', status: 503 }, { times: 5 });
    const seen = requestsFrom(bench);
    const event = await bench.runner.runCycle('crawl');
    expect(event.outcome).toBe('failed');
    expect(event.error).toMatch(/answered HTTP 503/);
    expect(seen()).toHaveLength(5);
    expect(bench.sleeps).toEqual(BACKOFF);
    expect(BACKOFF.reduce((a, b) => a + b)).toBe(60_000);
    expect(bench.snapshot()).toBe(before);
    expect(bench.runner.state).toMatchObject({ phase: 'offline', lastError: event.error, stopped: false });
    // The failed run is recorded; X-Synced-At still names the last success.
    expect(recentSyncRuns(bench.store, bench.source.id)[0]).toMatchObject({
      kind: 'crawl',
      outcome: 'failed',
      error: event.error,
    });
    const answer = await bench.local('/v2/ops/health/datasets/deliveries?pageSize=1');
    expect(answer.headers['x-synced-at']).toBe(new Date(START).toISOString());
    // The loop goes on: the next cycle is scheduled one poll interval later.
    expect(bench.scheduled.at(-1)).toBe(60_000);
  });

  it.each([
    ['a non-JSON page', { kind: 'non-json' }, /not JSON/],
    ['a page of the wrong shape', { kind: 'wrong-shape' }, /wrong shape: "items" is not an array/],
  ] as const)('%s fails the attempt at once, stored data exactly as it was', async (_n, fault, message) => {
    // Pages of 50 (the remote refuses 1000): the bad page comes after good ones.
    const bench = await syncedBench({ simulator: { maxPageSize: 50 } });
    const before = bench.snapshot();
    bench.simulator.faults.inject(fault, { route: 'list', skip: 2 });
    const event = await bench.runner.runCycle('crawl');
    expect(event.outcome).toBe('failed');
    expect(event.error).toMatch(message);
    expect(bench.sleeps).toEqual([]);
    expect(bench.snapshot()).toBe(before);
    expect(bench.runner.state.phase).toBe('error');
  });

  it('a repeated page token aborts the crawl, stored data unchanged', async () => {
    const bench = await syncedBench({ simulator: { maxPageSize: 50 } });
    const before = bench.snapshot();
    bench.simulator.faults.inject({ kind: 'repeat-token' });
    const seen = requestsFrom(bench);
    const event = await bench.runner.runCycle('crawl');
    expect(event.outcome).toBe('failed');
    expect(event.error).toMatch(/sent page token .* a second time: crawl aborted/);
    expect(seen().length).toBeLessThan(10);
    expect(bench.snapshot()).toBe(before);
  });

  it('falls back to pages of 50 when the remote refuses 1000', async () => {
    const bench = await syncBench({ simulator: { maxPageSize: 50 } });
    const seen = requestsFrom(bench);
    const event = await bench.runner.runCycle('crawl');
    expect(event.outcome).toBe('ok');
    const sizes = seen()
      .filter((r) => r.url.includes('/datasets/deliveries'))
      .map((r) => [new URL(r.url, 'http://x').searchParams.get('pageSize'), r.status]);
    expect(sizes).toEqual([
      ['1000', 400],
      ['50', 200],
      ['50', 200],
    ]);
    expect(byId(await allRecords(bench.local))).toEqual(byId(await allRecords(bench.remote)));
  });

  it('a record without datasetId is skipped and counted; the others are stored', async () => {
    const bench = await syncBench();
    bench.simulator.faults.inject({ kind: 'drop-dataset-id' }, { route: 'list' });
    const event = await bench.runner.runCycle('crawl');
    expect(event.outcome).toBe('ok');
    expect(event.counts).toMatchObject({ received: 60, skipped: 1, written: 59 });
    expect(await allRecords(bench.local)).toHaveLength(59);
  });

  it('unknown fields are ignored', async () => {
    const bench = await syncBench({ simulator: { extraFields: true } });
    const event = await bench.runner.runCycle('crawl');
    expect(event.outcome).toBe('ok');
    expect(event.counts.invalidValues).toBe(0);
    const local = await allRecords(bench.local);
    expect(JSON.stringify(local)).not.toContain('x-sim');
    expect(local).toHaveLength(60);
  });

  it('a rejected key stops the source with a clear state instead of retrying', async () => {
    const bench = await syncedBench();
    const before = bench.snapshot();
    bench.simulator.faults.inject({ kind: 'status', status: 401 });
    const seen = requestsFrom(bench);
    const scheduled = bench.scheduled.length;
    const event = await bench.runner.runCycle('crawl');
    expect(event.outcome).toBe('failed');
    expect(event.error).toMatch(/^API key rejected by 127\.0\.0\.1:\d+ \(HTTP 401\)/);
    expect(seen()).toHaveLength(1);
    expect(bench.sleeps).toEqual([]);
    expect(bench.runner.state).toMatchObject({ phase: 'error', stopped: true });
    expect(bench.scheduled).toHaveLength(scheduled);
    expect(bench.snapshot()).toBe(before);
  });

  it('the fast poll falls back to a full crawl when the remote refuses the filter', async () => {
    const bench = await syncedBench({ simulator: { rejectFilter: true } });
    const event = await bench.runner.runCycle('poll');
    expect(event).toMatchObject({ outcome: 'ok', kind: 'crawl' });
    expect(byId(await allRecords(bench.local))).toEqual(byId(await allRecords(bench.remote)));
  });

  it('a failing tasks fetch does not fail the cycle: it is counted and tried again next cycle', async () => {
    const bench = await syncBench();
    bench.simulator.faults.inject({ kind: 'status', status: 404 }, { route: 'tasks' });
    const first = await bench.runner.runCycle('crawl');
    expect(first.outcome).toBe('ok');
    expect(first.counts.tasksFailed).toBe(1);
    const second = await bench.runner.runCycle('crawl');
    expect(second.counts).toMatchObject({ tasksFetched: 1, tasksFailed: 0 });
  });

  it('a tasks endpoint that refuses or is down does not fail the cycle: its transitions are reported', async () => {
    const bench = await syncedBench();
    bench.simulator.faults.inject({ kind: 'status', status: 403 }, { route: 'tasks', times: 1000 });
    const event = await bench.runner.runCycle('crawl');
    expect(event.outcome).toBe('ok');
    expect(event.transitions.length).toBeGreaterThan(0);
    expect(event.counts.tasksFailed).toBe(1);
    expect(bench.runner.state).toMatchObject({ phase: 'idle', stopped: false });
  });

  it('a tasks endpoint answering 503 costs one short retry, not minutes: the rest wait for the next cycle', async () => {
    const bench = await syncBench();
    bench.simulator.faults.inject({ kind: 'status', status: 503 }, { route: 'tasks', times: 1000 });
    const event = await bench.runner.runCycle('crawl');
    expect(event.outcome).toBe('ok');
    expect(event.counts.tasksFetched).toBe(0);
    expect(bench.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2 * 1_500);
    bench.simulator.faults.clear();
    const next = await bench.runner.runCycle('poll');
    expect(next.counts.tasksFetched).toBeGreaterThan(0);
  });

  it('a record without datasetId makes the crawl incomplete: nothing is removed', async () => {
    const bench = await syncedBench();
    bench.simulator.faults.inject({ kind: 'drop-dataset-id' }, { route: 'list' });
    const event = await bench.runner.runCycle('crawl');
    expect(event).toMatchObject({
      outcome: 'ok',
      counts: expect.objectContaining({ skipped: 1, removed: 0 }),
    });
    expect(await allRecords(bench.local)).toHaveLength(60);
  });

  it('after a rejected key, a successful sync resumes the loop', async () => {
    const bench = await syncedBench();
    bench.simulator.faults.inject({ kind: 'status', status: 401 });
    const rejected = await bench.runner.runCycle('crawl');
    expect(rejected.error).toMatch(/the source is stopped: set a key to a valid key and restart$/);
    expect(bench.runner.state.stopped).toBe(true);
    const scheduled = bench.scheduled.length;
    await bench.runner.syncNow();
    expect(bench.runner.state).toMatchObject({ phase: 'idle', stopped: false, lastError: null });
    expect(bench.scheduled).toHaveLength(scheduled + 1);
  });

  it('the poll removes a troubled dataset the remote no longer has (404 on the direct fetch)', async () => {
    const bench = await syncedBench();
    const troubled = (await allRecords(bench.local)).find(
      (r) => r.latestDeliveryStatus === 'FAILED' || r.latestDeliveryStatus === 'MISSING',
    )!;
    bench.simulator.org.hide(troubled.datasetId);
    const event = await bench.runner.runCycle('poll');
    expect(event.counts.removed).toBe(1);
    expect(event.transitions).toContainEqual({
      datasetId: troubled.datasetId,
      from: troubled.latestDeliveryStatus,
      to: null,
      deliveryId: null,
    });
  });
});
