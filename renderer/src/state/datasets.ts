/**
 * The datasets table's data: rows of the current query, loaded page by page (the first page small, so
 * rows show at once; the rest in large pages behind it) and the status counts for the chips. A newer
 * query supersedes an older one mid-load, so rows of two queries never mix.
 */
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { DatasetQuery } from '../../../shared/rpc';
import type { DatasetRow, StatusCounts } from '../../../shared/rows';
import { useRpc } from '../rpc/client';
import { messageOf } from '../lib/errors';

export const FIRST_PAGE = 100;
export const NEXT_PAGES = 1000;

export const useDatasetsState = defineStore('datasets', () => {
  const rpc = useRpc();
  /** shallowRef: rows are replaced whole, never edited, and there may be 100k of them. */
  const rows = shallowRef<DatasetRow[]>([]);
  const counts = ref<StatusCounts | null>(null);
  const query = ref<DatasetQuery | null>(null);
  /** True until the first page of the current query arrived. */
  const loading = ref(false);
  /** True while more pages of the current query are on their way. */
  const loadingMore = ref(false);
  const error = ref<string | null>(null);
  /** The row the keyboard is on, by dataset id (the table highlights it). */
  const highlightedId = ref<string | null>(null);
  let generation = 0;
  /** Cancels the requests of the query a newer one replaced. */
  let superseded = new AbortController();

  async function load(next: DatasetQuery): Promise<void> {
    const mine = ++generation;
    superseded.abort();
    superseded = new AbortController();
    const { signal } = superseded;
    // The same query again (a sync changed the data) keeps its rows on screen until the new ones arrive.
    const changed = JSON.stringify(next) !== JSON.stringify(query.value);
    query.value = next;
    if (changed) loading.value = true;
    loadingMore.value = false;
    error.value = null;
    try {
      const [first, countsNow] = await Promise.all([
        rpc.call('datasets.rows', { ...next, pageToken: null, pageSize: FIRST_PAGE }, { signal }),
        rpc.call('datasets.counts', next, { signal }),
      ]);
      if (mine !== generation) return;
      // A new query shows its first page at once; the same query again swaps in only the complete
      // rows, so someone reading row 5,000 is not thrown back to the top by a sync.
      if (changed) rows.value = first.rows;
      counts.value = countsNow;
      loading.value = false;
      let token = first.nextPageToken;
      loadingMore.value = changed && token !== '';
      // The rest is shown at once when it has all arrived: the table re-processes its whole data on
      // every change, so one change instead of one per page.
      const rest: DatasetRow[][] = [];
      while (token !== '') {
        const page = await rpc.call(
          'datasets.rows',
          { ...next, pageToken: token, pageSize: NEXT_PAGES },
          { signal },
        );
        if (mine !== generation) return;
        rest.push(page.rows);
        token = page.nextPageToken;
      }
      if (!changed || rest.length > 0) rows.value = first.rows.concat(...rest);
      loadingMore.value = false;
    } catch (cause) {
      if (mine !== generation) return;
      error.value = messageOf(cause);
      loading.value = false;
      loadingMore.value = false;
    }
  }

  /** The same query again (after a sync changed the data). */
  function reload(): Promise<void> {
    return query.value ? load(query.value) : Promise.resolve();
  }

  return { rows, counts, query, loading, loadingMore, error, highlightedId, load, reload };
});
