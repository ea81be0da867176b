/**
 * The engine's events for open windows (shared/rpc.ts RpcEvents), from the sync and the store, for any
 * transport.
 */
import type { RpcEvent, RpcEvents } from '../../shared/rpc';
import type { Store } from '../store/database';
import type { SourcesSync } from '../sync/sourcesSync';
import { watchDatabaseStatus } from './database';

export type EventListener = <E extends RpcEvent>(name: E, payload: RpcEvents[E]) => void;

export interface EventHub {
  /** Returns the function that unsubscribes. */
  subscribe(listener: EventListener): () => void;
  /** Sends an event of the app's own (the shell's `app.navigate`). */
  emit: EventListener;
}

export function createEventHub(
  sync: Pick<SourcesSync, 'onCycle' | 'onState'>,
  database?: { store: Pick<Store, 'persistence'>; dataDir: string },
): EventHub {
  const listeners = new Set<EventListener>();
  const emit: EventListener = (name, payload) => listeners.forEach((listener) => listener(name, payload));
  sync.onCycle((event) => emit('sync.cycle', event));
  sync.onState((state) => emit('source.state', state));
  if (database)
    watchDatabaseStatus(database.store, database.dataDir, (status) => emit('database.status', status));
  return {
    emit,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
