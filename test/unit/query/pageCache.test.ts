/** List pages are served again from memory only while the data they were built from is unchanged. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PageCache } from '../../../electron/query/pageCache';
import { Store } from '../../../electron/store/database';

let store: Store;
const page = (text: string): Buffer => Buffer.from(text);

beforeEach(async () => {
  store = await Store.open({ dataDir: null });
});
afterEach(() => store.close());

describe('PageCache', () => {
  it('builds a page once per data revision', () => {
    const cache = new PageCache();
    let builds = 0;
    const build = (): Buffer => page(`page ${++builds}`);
    expect(cache.get(store, 'a', build)).toEqual(page('page 1'));
    expect(cache.get(store, 'a', build)).toEqual(page('page 1'));
    expect(cache.get(store, 'b', build)).toEqual(page('page 2'));
    store.run("INSERT INTO meta (key, value) VALUES ('x', 'y')");
    expect(cache.get(store, 'a', build)).toEqual(page('page 3'));
  });

  it('does not keep a page built while the data changed under it', () => {
    const cache = new PageCache();
    const body = cache.get(store, 'a', () => {
      store.run("INSERT INTO meta (key, value) VALUES ('x', 'y')");
      return page('stale');
    });
    expect(body).toEqual(page('stale'));
    expect(cache.get(store, 'a', () => page('fresh'))).toEqual(page('fresh'));
  });

  it('keeps within its budget, dropping the least recently used pages first', () => {
    const cache = new PageCache(40);
    cache.get(store, 'a', () => page('a'.repeat(10)));
    cache.get(store, 'b', () => page('b'.repeat(10)));
    cache.get(store, 'c', () => page('c'.repeat(10)));
    cache.get(store, 'a', () => page('rebuilt'));
    cache.get(store, 'd', () => page('d'.repeat(10)));
    cache.get(store, 'e', () => page('e'.repeat(10)));
    expect(cache.get(store, 'b', () => page('rebuilt b'))).toEqual(page('rebuilt b'));
    expect(cache.get(store, 'a', () => page('rebuilt a'))).toEqual(page('a'.repeat(10)));
  });
});
