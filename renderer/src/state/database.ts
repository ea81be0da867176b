/**
 * The local database as the window knows it (shared/database.ts): still opening (the app's window shows
 * before a large data directory is open), open, and whether the disk takes its writes. Kept current by
 * `database.status` events, and re-read every half minute in case the event stream dropped.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { DatabaseStatus } from '../../../shared/database';
import { useRpc } from '../rpc/client';
import { REFRESH_MS } from './sync';

export const useDatabaseState = defineStore('database', () => {
  const rpc = useRpc();
  const status = ref<DatabaseStatus | null>(null);
  /** The first answer came, or the call failed (the frame then shows why the engine cannot be reached). */
  const known = ref(false);
  const opening = computed(() => status.value?.state === 'opening');
  const writeProblem = computed(() => status.value?.writeProblem ?? null);
  let started = false;
  /** Events heard so far: one heard while a call was on its way is newer than the call's answer. */
  let heard = 0;

  async function refresh(): Promise<void> {
    const before = heard;
    try {
      const answer = await rpc.call('database.status', null);
      if (heard === before) status.value = answer;
    } catch {
      // Not signed in, or the engine is gone: the sync state's error says so in the frame.
    } finally {
      known.value = true;
    }
  }

  /** Loads once and follows the engine's events (and a periodic re-read) from then on. */
  function start(): Promise<void> {
    if (!started) {
      started = true;
      rpc.on('database.status', (next) => {
        heard += 1;
        status.value = next;
        known.value = true;
      });
      setInterval(() => void refresh(), REFRESH_MS);
    }
    return refresh();
  }

  return { status, known, opening, writeProblem, refresh, start };
});
