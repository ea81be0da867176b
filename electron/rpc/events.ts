/** The engine's events for open windows (shared/rpc.ts RpcEvents), from the sync, for any transport. */
import type { RpcEvent, RpcEvents } from '../../shared/rpc';
import type { SyncEngine } from '../sync/engine';

export type EventListener = <E extends RpcEvent>(name: E, payload: RpcEvents[E]) => void;

export interface EventHub {
  /** Returns the function that unsubscribes. */
  subscribe(listener: EventListener): () => void;
  /** Sends an event of the app's own (the shell's `app.navigate`). */
  emit: EventListener;
}

export function createEventHub(sync: Pick<SyncEngine, 'onCycle' | 'onState'>): EventHub {
  const listeners = new Set<EventListener>();
  const emit: EventListener = (name, payload) => listeners.forEach((listener) => listener(name, payload));
  sync.onCycle((event) => emit('sync.cycle', event));
  sync.onState((state) => emit('source.state', state));
  return {
    emit,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
