/**
 * The sync against the remote simulator on a real loopback port (docs/architecture.md#crawl): a full crawl mirrors
 * the remote exactly; after the remote changes, the next crawl or poll reflects it and reports the
 * right transitions; history grows beyond the remote's window; tasks of FAILED deliveries are there
 * offline; the local tasks endpoint reads through to the remote.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildApi } from '../../../electron/api/app';
import { SourcesSync } from '../../../electron/sync/sourcesSync';
import { recentSyncRuns } from '../../../electron/store/tables/syncRuns';
import { failedDeliveryOf } from '../../../electron/sync/fingerprint';
import type { DatasetRecord } from '../../../shared/schemas';
import type { StatusTransition } from '../../../shared/sync';
import { SIM_KEY, START, allRecords, byId, closeBenches, syncBench } from '../../helpers/sync';

afterEach(closeBenches);

const HOUR = 3_600_000;

/** What the transitions between two views of the remote must be (the rule of apply.ts, restated). */
function expectedTransitions(before: DatasetRecord[], after: DatasetRecord[]): StatusTransition[] {
  const old = new Map(before.map((r) => [r.datasetId, r]));
  const transitions: StatusTransition[] = [];
  for (const record of after) {
    const previous = old.get(record.datasetId);
    const to = record.latestDeliveryStatus;
    const failed = failedDeliveryOf(record);
    if (
      previous === undefined ||
      previous.latestDeliveryStatus !== to ||
      (to === 'FAILED' && failedDeliveryOf(previous) !== failed)
    ) {
      transitions.push({
        datasetId: record.datasetId,
        from: previous?.latestDeliveryStatus ?? null,
        to,
        deliveryId: to === 'FAILED' ? failed : record.deliveryId,
      });
    }
  }
  return sortTransitions(transitions);
}

const sortTransitions = (list: StatusTransition[]): StatusTransition[] =>
  [...list].sort((a, b) => (a.datasetId < b.datasetId ? -1 : 1));

describe('sync against the simulator', () => {
  it('after one crawl the local API returns exactly the remote records; tasks of FAILED deliveries are stored', async () => {
    const bench = await syncBench();
    const remote = await allRecords(bench.remote);
    const event = await bench.runner.runCycle('crawl');
    expect(event).toMatchObject({ outcome: 'ok', kind: 'crawl', firstSync: true, error: null });
    expect(event.counts).toMatchObject({ received: 60, written: 60, removed: 0, skipped: 0 });

    const local = await allRecords(bench.local);
    expect(byId(local)).toEqual(byId(remote));
    // The first sync reports every dataset as new.
    expect(sortTransitions(event.transitions)).toEqual(expectedTransitions([], remote));

    const failed = remote.filter((r) => r.latestDeliveryStatus === 'FAILED');
    expect(failed.length).toBeGreaterThan(0);
    expect(event.counts.tasksFetched).toBe(failed.length);
    for (const record of failed) {
      const deliveryId = failedDeliveryOf(record)!;
      // No read-through is wired into this API: the tasks come from the store.
      const local = await bench.local(`/v2/ops/health/deliveries/${deliveryId}/tasks?includeRunDetails=true`);
      const remoteTasks = await bench.remote(
        `/v2/ops/health/deliveries/${deliveryId}/tasks?includeRunDetails=true`,
      );
      expect(local.status).toBe(200);
      expect(local.body).toEqual(remoteTasks.body);
    }

    // X-Synced-At says when the synced data was read; the run is recorded.
    const answer = await bench.local('/v2/ops/health/datasets/deliveries?pageSize=1');
    expect(answer.headers['x-synced-at']).toBe(new Date(START).toISOString());
    expect(recentSyncRuns(bench.store, bench.source.id)).toEqual([
      expect.objectContaining({ kind: 'crawl', outcome: 'ok', counts: event.counts, error: null }),
    ]);
    expect(bench.runner.state).toMatchObject({ phase: 'idle', lastSuccessAt: new Date(START).toISOString() });
  });

  it('after the remote changes, the next crawl reflects it and emits exactly the transitions', async () => {
    const bench = await syncBench();
    const before = await allRecords(bench.remote);
    await bench.runner.runCycle('crawl');
    bench.clock.advance(9 * HOUR);
    const after = await allRecords(bench.remote);
    const expected = expectedTransitions(before, after);
    expect(expected.some((t) => t.to === 'FAILED')).toBe(true);

    const event = await bench.runner.runCycle('crawl');
    expect(event).toMatchObject({ outcome: 'ok', firstSync: false });
    expect(sortTransitions(event.transitions)).toEqual(expected);
    expect(byId(await allRecords(bench.local))).toEqual(byId(after));

    // An unchanged remote: nothing written, no transitions, and the API's ETags and cached pages stay
    // valid (only the sync time moves).
    const revision = bench.store.dataRevision;
    const again = await bench.runner.runCycle('crawl');
    expect(again.counts.written).toBe(0);
    expect(again.transitions).toEqual([]);
    expect(bench.store.dataRevision).toBe(revision);
  });

  it('the fast poll reports the FAILED/MISSING changes, including datasets that recovered', async () => {
    const bench = await syncBench({ simulator: { datasets: 120 } });
    const before = await allRecords(bench.remote);
    await bench.runner.runCycle('crawl');
    bench.clock.advance(5 * HOUR);
    const after = await allRecords(bench.remote);
    const troubled = (r: DatasetRecord | undefined): boolean =>
      r?.latestDeliveryStatus === 'FAILED' || r?.latestDeliveryStatus === 'MISSING';
    const previous = new Map(before.map((r) => [r.datasetId, r]));
    const expected = expectedTransitions(before, after).filter(
      (t) => troubled(previous.get(t.datasetId)) || t.to === 'FAILED' || t.to === 'MISSING',
    );
    expect(expected.some((t) => t.from === 'FAILED' || t.from === 'MISSING')).toBe(true);

    const requestsBefore = bench.simulator.requests.length;
    const event = await bench.runner.runCycle('poll');
    expect(event).toMatchObject({ outcome: 'ok', kind: 'poll' });
    expect(sortTransitions(event.transitions)).toEqual(expected);
    const urls = bench.simulator.requests.slice(requestsBefore).map((r) => decodeURIComponent(r.url));
    expect(urls[0]).toContain('filter=deliveryStatus.in.(FAILED,MISSING)');
    // Only troubled datasets were read: the poll does not walk the org.
    expect(event.counts.received).toBeLessThan(after.length);
    for (const record of after.filter((r) => troubled(r) || troubled(previous.get(r.datasetId)))) {
      const local = await bench.local(`/v2/ops/health/datasets/${record.datasetId}/deliveries`);
      expect(local.body).toEqual(record);
    }
  });

  it('merges history by deliveryId: local history grows beyond the remote window', async () => {
    const bench = await syncBench({ simulator: { historyDepth: 12 } });
    await bench.runner.runCycle('crawl');
    bench.clock.advance(30 * HOUR);
    await bench.runner.runCycle('crawl');
    const local = await allRecords(bench.local, '&latestDeliveriesCount=100');
    const remote = await allRecords(bench.remote, '&latestDeliveriesCount=100');
    const deepest = Math.max(...local.map((r) => r.deliveryEventList.length));
    expect(deepest).toBeGreaterThan(12);
    expect(Math.max(...remote.map((r) => r.deliveryEventList.length))).toBe(12);
    // The newest events are the remote's own (crawls after the first ask for the newest 10).
    const remoteById = new Map(remote.map((r) => [r.datasetId, r]));
    for (const record of local) {
      const window = remoteById.get(record.datasetId)!.deliveryEventList.slice(0, 10);
      expect(record.deliveryEventList.slice(0, window.length)).toEqual(window);
    }
  });

  it('removes datasets a complete crawl no longer lists, and reports them gone', async () => {
    const bench = await syncBench();
    await bench.runner.runCycle('crawl');
    const [gone] = await allRecords(bench.remote);
    bench.simulator.org.hide(gone!.datasetId);
    const event = await bench.runner.runCycle('crawl');
    expect(event.counts.removed).toBe(1);
    expect(event.transitions).toEqual([
      { datasetId: gone!.datasetId, from: gone!.latestDeliveryStatus, to: null, deliveryId: null },
    ]);
    expect((await bench.local(`/v2/ops/health/datasets/${gone!.datasetId}/deliveries`)).status).toBe(404);
  });

  it('the local tasks endpoint reads through to the remote for deliveries whose tasks are not stored', async () => {
    const bench = await syncBench();
    const sourcesSync = new SourcesSync({
      store: bench.store,
      secrets: { apiKeyFor: () => SIM_KEY, hint: '' },
      now: () => new Date(bench.clock.now()),
      sleep: async () => {},
      timers: { setTimeout: () => 0, clearTimeout: () => {} },
    });
    sourcesSync.start();
    await bench.runner.runCycle('crawl');
    const api = await buildApi({
      store: bench.store,
      port: 47800,
      logger: false,
      readThrough: sourcesSync.readThrough,
    });
    try {
      const healthy = (await allRecords(bench.remote)).find((r) => r.latestDeliveryStatus === 'HEALTHY')!;
      const deliveryId = healthy.deliveryEventList[0]!.deliveryId!;
      const get = (path: string) =>
        api.inject({
          method: 'GET',
          url: path,
          headers: { host: '127.0.0.1:47800', authorization: `Bearer ${bench.localKey}` },
        });
      const before = await bench.local(`/v2/ops/health/deliveries/${deliveryId}/tasks`);
      expect(before.status).toBe(404);
      expect(JSON.stringify(before.body)).toMatch(/never synced/);
      const read = await get(`/v2/ops/health/deliveries/${deliveryId}/tasks`);
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual((await bench.remote(`/v2/ops/health/deliveries/${deliveryId}/tasks`)).body);
      // Stored: now served by the API that has no way to the remote.
      expect((await bench.local(`/v2/ops/health/deliveries/${deliveryId}/tasks`)).status).toBe(200);
      // An unknown delivery is not fetched at all.
      expect((await get('/v2/ops/health/deliveries/dlv-unknown/tasks')).statusCode).toBe(404);
    } finally {
      await api.close();
      await sourcesSync.stop();
    }
  });
});
