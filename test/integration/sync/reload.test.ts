/**
 * Applying settings restarts the sync: reloads (and the final stop) run one after another, so reloads
 * that overlap — two settings saved at once — never leave a runner that nothing stops.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../../electron/store/database';
import { saveSource } from '../../../electron/store/tables/sources';
import type { FetchLike } from '../../../electron/sync/client';
import { SourcesSync } from '../../../electron/sync/sourcesSync';

const NOW = new Date('2026-11-21T04:41:00.000Z');
let store: Store;

afterEach(() => store?.close());

describe('sync reload', () => {
  it('overlapping reloads, then stop: every request any runner made is cancelled', async () => {
    store = await Store.open({ dataDir: null });
    saveSource(store, { id: 'acme', orgId: 'acme', baseUrl: 'http://127.0.0.1:9' }, NOW);
    const signals: AbortSignal[] = [];
    // A remote that never answers: each runner stays in its first crawl until it is stopped.
    const fetch: FetchLike = (_url, init) => {
      signals.push(init.signal);
      return new Promise((_resolve, reject) =>
        init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
      );
    };
    const sourcesSync = new SourcesSync({
      store,
      secrets: { apiKeyFor: () => 'k', hint: '' },
      now: () => NOW,
      fetch,
    });
    sourcesSync.start();
    const settings = { intervals: { pollMs: 60_000, crawlMs: 900_000 }, deliveriesPerDataset: 100 };
    await Promise.all([
      sourcesSync.reload(settings),
      sourcesSync.reload({ ...settings, deliveriesPerDataset: 50 }),
    ]);
    // The runner of the last reload is crawling: it has asked the remote.
    await expect.poll(() => signals.filter((signal) => !signal.aborted).length).toBeGreaterThan(0);
    // Give a runner a reload might have orphaned the time to ask too.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await sourcesSync.stop();
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    expect(sourcesSync.states()).toEqual([]);
  });
});
