/**
 * The sync store against the real engine: source states follow events, a refresh answer never
 * overwrites a newer event, and views are told to reload when a cycle changed an org's data — also when
 * the event itself was missed (the stream dropped), but not for a quiet cycle.
 */
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from 'vue';
import { markOrgSynced } from '../../../../electron/store/tables/orgs';
import { RPC_CLIENT } from '../../../../renderer/src/rpc/client';
import { useSyncState } from '../../../../renderer/src/state/sync';
import type { RpcClient } from '../../../../shared/rpc';
import { EMPTY_COUNTS, type CycleEvent, type SourceState } from '../../../../shared/sync';
import { ENGINE_NOW, ENGINE_ORG, type EngineClient, engineClient } from '../../../helpers/engineClient';

let engine: EngineClient;

function syncStore(client: RpcClient = engine.client) {
  const app = createApp({});
  app.provide(RPC_CLIENT, client);
  const pinia = createPinia();
  app.use(pinia);
  setActivePinia(pinia);
  return app.runWithContext(() => useSyncState());
}

const state = (phase: SourceState['phase']): SourceState => ({
  sourceId: 'acme-remote',
  orgId: ENGINE_ORG,
  name: 'Acme remote',
  phase,
  activity: null,
  lastSuccessAt: null,
  lastError: null,
  lastErrorAt: null,
  lastDurationMs: null,
  lastCounts: null,
  nextRunAt: null,
  stopped: false,
  pollIntervalMs: 60_000,
});

const cycle = (changes: Partial<CycleEvent['counts']>, transitions = 0): CycleEvent => ({
  sourceId: 'acme-remote',
  orgId: ENGINE_ORG,
  kind: 'poll',
  outcome: 'ok',
  firstSync: false,
  transitions: Array.from({ length: transitions }, (_, i) => ({
    datasetId: `ds-${i}`,
    from: 'HEALTHY',
    to: 'FAILED',
    deliveryId: `d-${i}`,
  })),
  counts: { ...EMPTY_COUNTS, ...changes },
  error: null,
  startedAt: ENGINE_NOW.toISOString(),
  endedAt: ENGINE_NOW.toISOString(),
});

beforeEach(async () => {
  engine = await engineClient({ datasets: 10 });
});
afterEach(() => engine.close());

describe('sync store', () => {
  it('loads the orgs, then follows source states from events', async () => {
    const sync = syncStore();
    await sync.start();
    expect(sync.orgs.map((org) => org.id)).toEqual([ENGINE_ORG]);
    engine.emit('source.state', state('syncing'));
    expect(sync.states).toEqual([state('syncing')]);
    engine.emit('source.state', state('idle'));
    expect(sync.states).toEqual([state('idle')]);
  });

  it('a refresh that was on its way when an event arrived does not overwrite that newer state', async () => {
    // The engine answers sync.states only when the test lets it, with what was true when it was asked.
    let answer: (states: SourceState[]) => void = () => undefined;
    const client: RpcClient = {
      on: engine.client.on,
      call: ((name, request, options) =>
        name === 'sync.states'
          ? new Promise<SourceState[]>((resolve) => (answer = resolve))
          : engine.client.call(name, request, options)) as RpcClient['call'],
    };
    const sync = syncStore(client);
    const starting = sync.start();
    answer([state('idle')]);
    await starting;
    const refreshing = sync.refresh();
    engine.emit('source.state', state('offline'));
    answer([state('syncing')]);
    await refreshing;
    expect(sync.states).toEqual([state('offline')]);
  });

  it('tells views to reload when a cycle changed the data, not for a quiet one', async () => {
    const sync = syncStore();
    await sync.start();
    engine.emit('sync.cycle', cycle({}));
    expect(sync.changes[ENGINE_ORG]).toBeUndefined();
    engine.emit('sync.cycle', cycle({ written: 3 }, 1));
    expect(sync.changes[ENGINE_ORG]).toBe(1);
  });

  it('notices a sync it heard nothing of (the event stream dropped) at the next refresh', async () => {
    const sync = syncStore();
    await sync.start();
    markOrgSynced(engine.store, ENGINE_ORG, new Date(ENGINE_NOW.getTime() + 60_000));
    await sync.refresh();
    expect(sync.changes[ENGINE_ORG]).toBe(1);
    // The same age again is nothing new.
    await sync.refresh();
    expect(sync.changes[ENGINE_ORG]).toBe(1);
  });
});
