/**
 * Recently served list pages, kept until the data changes. A local mirror changes once per sync, while
 * scripts and the window ask for the same pages again and again; the cache is keyed by the store's data
 * revision, so a page can never outlive the data it was built from.
 */
import type { Store } from '../store/database';

/** Total size of the cached bodies, in bytes. */
const DEFAULT_BUDGET = 8 * 1024 * 1024;

export class PageCache {
  private revision = '';
  private readonly pages = new Map<string, Buffer>();
  private size = 0;

  constructor(private readonly budget = DEFAULT_BUDGET) {}

  /** The cached body for `key`, else builds, remembers and returns it. */
  get(store: Store, key: string, build: () => Buffer): Buffer {
    if (store.dataRevision !== this.revision) this.clear(store.dataRevision);
    const cached = this.pages.get(key);
    if (cached !== undefined) {
      // Map order is insertion order: re-inserting marks the page as recently used.
      this.pages.delete(key);
      this.pages.set(key, cached);
      return cached;
    }
    const revision = store.dataRevision;
    const body = build();
    if (store.dataRevision !== revision || body.length > this.budget / 4) return body;
    this.pages.set(key, body);
    this.size += body.length;
    for (const [oldest, page] of this.pages) {
      if (this.size <= this.budget) break;
      this.pages.delete(oldest);
      this.size -= page.length;
    }
    return body;
  }

  private clear(revision: string): void {
    this.pages.clear();
    this.size = 0;
    this.revision = revision;
  }
}

const caches = new WeakMap<Store, PageCache>();

export function pageCacheOf(store: Store): PageCache {
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new PageCache()));
  return cache;
}
