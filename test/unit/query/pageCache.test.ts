/** List pages are served again from memory only while the data they were built from is unchanged. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PageCache } from '../../../electron/query/pageCache';
import { Store } from '../../../electron/store/database';

let store: Store;
beforeEach(async () => {
  store = await Store.open({ dataDir: null });
});
afterEach(() => store.close());

describe('PageCache', () => {
  it('builds a page once per data revision', () => {
    const cache = new PageCache();
    let builds = 0;
    const build = (): string => `page ${++builds}`;
    expect(cache.get(store, 'a', build)).toBe('page 1');
    expect(cache.get(store, 'a', build)).toBe('page 1');
    expect(cache.get(store, 'b', build)).toBe('page 2');
    store.run("INSERT INTO meta (key, value) VALUES ('x', 'y')");
    expect(cache.get(store, 'a', build)).toBe('page 3');
  });

  it('does not keep a page built while the data changed under it', () => {
    const cache = new PageCache();
    const body = cache.get(store, 'a', () => {
      store.run("INSERT INTO meta (key, value) VALUES ('x', 'y')");
      return 'stale';
    });
    expect(body).toBe('stale');
    expect(cache.get(store, 'a', () => 'fresh')).toBe('fresh');
  });

  it('keeps within its budget, dropping the least recently used pages first', () => {
    const cache = new PageCache(40);
    cache.get(store, 'a', () => 'a'.repeat(10));
    cache.get(store, 'b', () => 'b'.repeat(10));
    cache.get(store, 'c', () => 'c'.repeat(10));
    cache.get(store, 'a', () => 'rebuilt');
    cache.get(store, 'd', () => 'd'.repeat(10));
    cache.get(store, 'e', () => 'e'.repeat(10));
    expect(cache.get(store, 'b', () => 'rebuilt b')).toBe('rebuilt b');
    expect(cache.get(store, 'a', () => 'rebuilt a')).toBe('a'.repeat(10));
  });
});
