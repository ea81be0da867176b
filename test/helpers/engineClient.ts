/**
 * The real engine behind the renderer's RPC client, in-process: a sql.js store filled by the demo
 * generator, the real handlers and dispatch (schema checks included), no HTTP. Component and store
 * tests use it instead of a hand-written fake, so they exercise the same queries as the window.
 */
import { openHeadlessSettings } from '../../electron/store/tables/settings';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDemo } from '../../electron/demo/load';
import type { OnCallKnowledge } from '../../electron/knowledge/service';
import { type Dispatch, createDispatch } from '../../electron/rpc/dispatch';
import { createEventHub } from '../../electron/rpc/events';
import { createRpcHandlers } from '../../electron/rpc/handlers';
import { Store } from '../../electron/store/database';
import { SourcesSync } from '../../electron/sync/sourcesSync';
import { envSecretKeeper } from '../../electron/sync/secrets';
import type { RpcClient, RpcEvents } from '../../shared/rpc';
import { RpcError } from '../../shared/rpc';

export const ENGINE_NOW = new Date('2026-11-21T04:41:00.000Z');
export const ENGINE_ORG = 'acme';

export interface EngineClient {
  client: RpcClient;
  store: Store;
  /** The engine's data folder (exports go to its exports/). */
  dataDir: string;
  /** Every call the client made, in order (name and request). */
  calls: { name: string; request: unknown }[];
  /** Pushes an event to the client's listeners, as the engine would. */
  emit<E extends keyof RpcEvents>(name: E, payload: RpcEvents[E]): void;
  close(): Promise<void>;
}

/**
 * The real RPC handlers and dispatch over a store, with a sources' sync of no sources and the settings file
 * in `dataDir`. `fetch` (test connection), `log` (internal errors), `knowledge` (the on-call service, e.g.
 * with its own clock and sources) and `routesChanged` (a deliverer's wake) as the engine would be given them.
 */
export function engineDispatch(
  store: Store,
  dataDir: string,
  at: Date,
  options: {
    fetch?: typeof fetch;
    log?: (error: unknown) => void;
    knowledge?: OnCallKnowledge;
    /** Wakes the routes' deliverer after a dead letter is sent again. */
    routesChanged?: () => void;
  } = {},
): { dispatch: Dispatch; sync: SourcesSync } {
  const now = () => at;
  const secrets = envSecretKeeper({});
  const sync = new SourcesSync({ store, secrets, now });
  const dispatch = createDispatch(
    createRpcHandlers({
      store,
      sync,
      secrets,
      now,
      runtime: { apiUrl: 'http://127.0.0.1:47800', dataDir, version: '0.1.0' },
      overridden: [],
      reloadSync: async () => undefined,
      settings: openHeadlessSettings(dataDir, store, now),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.knowledge ? { knowledge: options.knowledge } : {}),
      ...(options.routesChanged ? { routesChanged: options.routesChanged } : {}),
    }),
    options.log,
  );
  return { dispatch, sync };
}

export async function engineClient(
  options: { datasets?: number; seed?: number } = {},
): Promise<EngineClient> {
  const store = await Store.open({ dataDir: null });
  // Exports from Settings → Data land here; removed on close.
  const dataDir = mkdtempSync(join(tmpdir(), 'dh-engine-client-'));
  loadDemo(store, {
    orgId: ENGINE_ORG,
    datasets: options.datasets ?? 60,
    seed: options.seed ?? 3,
    now: ENGINE_NOW,
  });
  const { dispatch, sync } = engineDispatch(store, dataDir, ENGINE_NOW);
  const hub = createEventHub(sync);
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  hub.subscribe((name, payload) => listeners.get(name)?.forEach((listener) => listener(payload)));
  const calls: EngineClient['calls'] = [];
  const client: RpcClient = {
    async call(name, request) {
      calls.push({ name, request });
      try {
        // Through JSON, as both transports do.
        return JSON.parse(
          JSON.stringify((await dispatch(name, JSON.parse(JSON.stringify(request ?? null)))) ?? null),
        );
      } catch (error) {
        if (error instanceof RpcError) throw new RpcError(error.code, error.message);
        throw error;
      }
    },
    on(name, listener) {
      const set = listeners.get(name) ?? new Set();
      listeners.set(name, set);
      set.add(listener as (payload: unknown) => void);
      return () => set.delete(listener as (payload: unknown) => void);
    },
  };
  return {
    client,
    store,
    dataDir,
    calls,
    emit: (name, payload) => listeners.get(name)?.forEach((listener) => listener(payload)),
    close: async () => {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
