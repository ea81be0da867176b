/**
 * The Triage view's data (docs/decisions.md "Incidents"): the org's live incidents, in the engine's
 * order, and what the user did with them that should outlive a visit to a dataset (which are open, the row
 * the keyboard is on). Loaded again quietly after a sync cycle that may have changed them and after an
 * acknowledgement; only the newest answer is kept, and rows stay on screen while a reload is on its way.
 */
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { Incident } from '../../../shared/causes';
import type { CycleEvent } from '../../../shared/sync';
import { messageOf } from '../lib/errors';
import { useRpc } from '../rpc/client';

/** A row the keyboard can be on: an incident's header or one dataset of an open incident. */
export type TriageStop =
  { kind: 'cause'; incidentId: string } | { kind: 'dataset'; incidentId: string; datasetId: string };

export const stopKey = (stop: TriageStop): string =>
  stop.kind === 'cause' ? `cause:${stop.incidentId}` : `dataset:${stop.incidentId}:${stop.datasetId}`;

/** Whether a cycle can have changed the causes: new records, removals, status changes or fetched tasks. */
export function cycleChangesCauses(cycle: CycleEvent): boolean {
  if (cycle.outcome !== 'ok') return false;
  const { written, removed, tasksFetched } = cycle.counts;
  return written > 0 || removed > 0 || tasksFetched > 0 || cycle.transitions.length > 0;
}

export const useTriageState = defineStore('triage', () => {
  const rpc = useRpc();
  const orgId = ref<string | null>(null);
  /** shallowRef: replaced whole at each answer, never edited. */
  const causes = shallowRef<Incident[]>([]);
  /** True once the current org's first answer arrived (or failed). */
  const loaded = ref(false);
  const error = ref<string | null>(null);
  /** Open causes, by id; kept across visits, so coming back from a dataset shows the same rows. */
  const expanded = ref<string[]>([]);
  /** The row the keyboard is on (stopKey), or null. */
  const highlighted = ref<string | null>(null);
  let newest = 0;

  /** Loads the org's causes; a different org starts afresh (nothing of the other org stays shown). */
  async function load(org: string): Promise<void> {
    const mine = ++newest;
    if (org !== orgId.value) {
      orgId.value = org;
      causes.value = [];
      loaded.value = false;
      expanded.value = [];
      highlighted.value = null;
    }
    try {
      const answer = await rpc.call('incidents.list', { orgId: org });
      if (mine !== newest) return;
      causes.value = answer;
      error.value = null;
    } catch (cause) {
      if (mine !== newest) return;
      error.value = messageOf(cause);
    } finally {
      if (mine === newest) loaded.value = true;
    }
  }

  function reload(): Promise<void> {
    return orgId.value === null ? Promise.resolve() : load(orgId.value);
  }

  /** Reloads after each cycle of the shown org that may have changed its causes; returns the unsubscribe. */
  function follow(): () => void {
    return rpc.on('sync.cycle', (cycle) => {
      if (cycle.orgId === orgId.value && cycleChangesCauses(cycle)) void reload();
    });
  }

  function setExpanded(incidentId: string, open: boolean): void {
    const others = expanded.value.filter((id) => id !== incidentId);
    expanded.value = open ? [...others, incidentId] : others;
  }

  return { orgId, causes, loaded, error, expanded, highlighted, load, reload, follow, setExpanded };
});
