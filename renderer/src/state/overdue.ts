/**
 * Overdue (unverified), docs/architecture.md#deadlines: per org, the deadlines that passed since the last successful sync
 * while its data is stale, as the engine's deadline clock counts them (`overdue.get`). Views follow an
 * org with `useOrgOverdue`: read again whenever the sync's states are (at each source event and every
 * half minute), so the count grows while offline and clears at the next successful sync.
 */
import { defineStore } from 'pinia';
import { type ComputedRef, type Ref, computed, ref, watch } from 'vue';
import type { OverdueSummary } from '../../../shared/upcoming';
import { useRpc } from '../rpc/client';
import { useSyncState } from './sync';

export const useOverdueState = defineStore('overdue', () => {
  const rpc = useRpc();
  const summaries = ref<Record<string, OverdueSummary>>({});
  /** One read per org at a time; asked again meanwhile: once more when it ends. */
  const reading = new Map<string, { again: boolean }>();

  async function load(orgId: string): Promise<void> {
    const running = reading.get(orgId);
    if (running) {
      running.again = true;
      return;
    }
    const turn = { again: false };
    reading.set(orgId, turn);
    try {
      do {
        turn.again = false;
        try {
          summaries.value = { ...summaries.value, [orgId]: await rpc.call('overdue.get', { orgId }) };
        } catch {
          // An extra on top of the remote's statuses: the last answer stays, and the window's banner
          // already says when the engine cannot be reached.
        }
      } while (turn.again);
    } finally {
      reading.delete(orgId);
    }
  }

  return { summaries, load };
});

/** The org's overdue summary (null until read), kept current while the calling component lives. */
export function useOrgOverdue(orgId: Ref<string>): ComputedRef<OverdueSummary | null> {
  const overdue = useOverdueState();
  const sync = useSyncState();
  watch(
    [orgId, () => sync.states, () => sync.changes[orgId.value]],
    () => {
      if (orgId.value !== '') void overdue.load(orgId.value);
    },
    { immediate: true },
  );
  return computed(() => overdue.summaries[orgId.value] ?? null);
}
