/**
 * What the dataset and delivery views load, and when: with a spinner when the route's ids change (a
 * different thing is shown), quietly when a sync changed the org's data (the same thing, newer), so
 * the page does not flash while someone reads it. Only the newest load's answer is kept.
 */
import { type Ref, type ShallowRef, type WatchSource, ref, shallowRef, watch } from 'vue';
import { messageOf } from '../lib/errors';
import { useSyncState } from '../state/sync';

export interface ViewData<T> {
  data: ShallowRef<T | null>;
  /** A load with a spinner is under way (the first, a route change, or Retry). */
  loading: Ref<boolean>;
  /** Why the last shown load failed, for the user. */
  error: Ref<string | null>;
  reload(quiet: boolean): Promise<void>;
}

/**
 * `ids` are the route's ids, compared one by one; nothing loads while one is missing (the route of a
 * view being left no longer has them).
 */
export function useViewData<T>(
  ids: WatchSource<string | undefined>[],
  orgId: () => string,
  load: () => Promise<T>,
): ViewData<T> {
  const data = shallowRef<T | null>(null);
  const loading = ref(true);
  const error = ref<string | null>(null);
  let newest = 0;

  async function reload(quiet: boolean): Promise<void> {
    const mine = ++newest;
    if (!quiet) {
      loading.value = true;
      error.value = null;
      // What was shown belongs to other ids: never leave it on screen under the new ones.
      data.value = null;
    }
    try {
      const value = await load();
      if (mine !== newest) return;
      data.value = value;
      error.value = null;
    } catch (cause) {
      if (mine !== newest) return;
      // A failed quiet reload keeps what is shown: the sync banner already says the engine has trouble.
      if (!quiet || data.value === null) error.value = messageOf(cause);
    } finally {
      if (mine === newest) loading.value = false;
    }
  }

  watch(
    ids,
    (values) => {
      if (values.every((value) => typeof value === 'string' && value !== '')) void reload(false);
    },
    { immediate: true },
  );

  const sync = useSyncState();
  watch(
    () => [orgId(), sync.changes[orgId()] ?? 0] as const,
    ([org, count], [previousOrg, previousCount]) => {
      // Another org means new ids, which the watch above already loads.
      if (org === previousOrg && count !== previousCount) void reload(true);
    },
  );

  return { data, loading, error, reload };
}
