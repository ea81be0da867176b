/**
 * Sync state for the always-visible bar and banner: the orgs in the mirror, each source's state (kept
 * current by `source.state` events), and a counter per org that moves when a cycle changed its data, so
 * open views reload only when there is something new.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { OrgView } from '../../../shared/rpc';
import type { SourceState } from '../../../shared/sync';
import { useRpc } from '../rpc/client';
import { messageOf } from '../lib/errors';

export const useSyncStore = defineStore('sync', () => {
  const rpc = useRpc();
  const orgs = ref<OrgView[]>([]);
  const states = ref<SourceState[]>([]);
  const error = ref<string | null>(null);
  const loaded = ref(false);
  /** Per org: how many cycles changed its data since the window opened. */
  const changes = ref<Record<string, number>>({});
  let started = false;

  async function refresh(): Promise<void> {
    try {
      const [orgList, stateList] = await Promise.all([
        rpc.call('orgs.list', null),
        rpc.call('sync.states', null),
      ]);
      orgs.value = orgList;
      states.value = stateList;
      error.value = null;
    } catch (cause) {
      error.value = messageOf(cause);
    } finally {
      loaded.value = true;
    }
  }

  function upsert(state: SourceState): void {
    const others = states.value.filter((s) => s.sourceId !== state.sourceId);
    states.value = [...others, state].sort((a, b) => a.sourceId.localeCompare(b.sourceId));
  }

  /** Loads once and follows the engine's events from then on. */
  function start(): Promise<void> {
    if (!started) {
      started = true;
      rpc.on('source.state', upsert);
      rpc.on('sync.cycle', (cycle) => {
        if (cycle.outcome !== 'ok') return;
        if (cycle.counts.written > 0 || cycle.counts.removed > 0 || cycle.transitions.length > 0) {
          changes.value = { ...changes.value, [cycle.orgId]: (changes.value[cycle.orgId] ?? 0) + 1 };
        }
        void refresh();
      });
    }
    return refresh();
  }

  async function syncNow(sourceId: string | null = null): Promise<void> {
    try {
      await rpc.call('sync.now', { sourceId });
      error.value = null;
    } catch (cause) {
      error.value = messageOf(cause);
    }
  }

  const statesOf = (orgId: string) => computed(() => states.value.filter((s) => s.orgId === orgId));

  return { orgs, states, error, loaded, changes, refresh, start, syncNow, statesOf };
});
