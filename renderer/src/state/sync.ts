/**
 * Sync state for the always-visible bar and banner: the orgs in the mirror, each source's state (kept
 * current by `source.state` events, and re-read every half minute in case the event stream dropped), and
 * a counter per org that moves when a cycle changed its data, so open views reload only when there is
 * something new.
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { OrgView } from '../../../shared/views';
import type { SourceState } from '../../../shared/sync';
import type { TeamStatus } from '../../../shared/teamStatus';
import { useRpc } from '../rpc/client';
import { messageOf } from '../lib/errors';

/** How often states and org ages are re-read, whatever the events say. */
export const REFRESH_MS = 30_000;

export const useSyncState = defineStore('sync', () => {
  const rpc = useRpc();
  const orgs = ref<OrgView[]>([]);
  const states = ref<SourceState[]>([]);
  /** How this desktop stands with the team server of each org it shares (none when it shares none). */
  const teams = ref<TeamStatus[]>([]);
  const error = ref<string | null>(null);
  const loaded = ref(false);
  /** Per org: how many cycles changed its data since the window opened. */
  const changes = ref<Record<string, number>>({});
  let started = false;
  /** Events and refreshes are numbered, so an older answer never overwrites newer news. */
  let sequence = 0;
  let answered = 0;
  const stateSeen = new Map<string, number>();
  /** Orgs whose cycles the events told us of since the last refresh. */
  const heardOf = new Set<string>();

  const bump = (orgId: string): void => {
    changes.value = { ...changes.value, [orgId]: (changes.value[orgId] ?? 0) + 1 };
  };

  async function refresh(): Promise<void> {
    const asked = ++sequence;
    try {
      const [orgList, stateList, teamList] = await Promise.all([
        rpc.call('orgs.list', null),
        rpc.call('sync.states', null),
        rpc.call('team.status', null),
      ]);
      // A later refresh has answered already: this one is older news.
      if (asked < answered) return;
      answered = asked;
      for (const org of orgList) {
        const before = orgs.value.find((known) => known.id === org.id);
        // Synced again without an event reaching us (the stream dropped): the views reload anyway.
        if (before && before.lastSyncedAt !== org.lastSyncedAt && !heardOf.has(org.id)) bump(org.id);
      }
      heardOf.clear();
      orgs.value = orgList;
      // A state event that arrived while this refresh was on its way is newer than its answer.
      states.value = stateList.map(
        (state) =>
          states.value.find(
            (s) => s.sourceId === state.sourceId && (stateSeen.get(s.sourceId) ?? 0) > asked,
          ) ?? state,
      );
      teams.value = teamList;
      error.value = null;
    } catch (cause) {
      error.value = messageOf(cause);
    } finally {
      loaded.value = true;
    }
  }

  function upsert(state: SourceState): void {
    stateSeen.set(state.sourceId, ++sequence);
    const others = states.value.filter((s) => s.sourceId !== state.sourceId);
    states.value = [...others, state].sort((a, b) => a.sourceId.localeCompare(b.sourceId));
  }

  /** A team's status: a change from the team applied here reloads the org's open views. */
  function upsertTeam(status: TeamStatus): void {
    const before = teams.value.find((team) => team.orgId === status.orgId);
    if (before && status.applied !== before.applied) bump(status.orgId);
    teams.value = [...teams.value.filter((team) => team.orgId !== status.orgId), status].sort((a, b) =>
      a.orgId.localeCompare(b.orgId),
    );
  }

  /** Loads once and follows the engine's events (and a periodic re-read) from then on. */
  function start(): Promise<void> {
    if (!started) {
      started = true;
      rpc.on('source.state', upsert);
      rpc.on('team.status', upsertTeam);
      rpc.on('sync.cycle', (cycle) => {
        if (cycle.outcome !== 'ok') return;
        heardOf.add(cycle.orgId);
        if (cycle.counts.written > 0 || cycle.counts.removed > 0 || cycle.transitions.length > 0)
          bump(cycle.orgId);
        void refresh();
      });
      setInterval(() => void refresh(), REFRESH_MS);
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

  return { orgs, states, teams, error, loaded, changes, refresh, start, syncNow };
});
