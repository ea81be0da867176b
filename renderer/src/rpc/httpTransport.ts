/**
 * The browser transport (`serve --ui`): each call is `POST /rpc/<name>` with the request as JSON, and
 * events arrive as server-sent events from `/rpc/events`. The session cookie travels by itself.
 */
import {
  RPC_EVENTS,
  type RpcCall,
  type RpcClient,
  type RpcErrorBody,
  RpcError,
  type RpcEvent,
  type RpcEvents,
  type RpcRequest,
  type RpcResponse,
} from '../../../shared/rpc';

type Listener = (payload: unknown) => void;

export function createHttpClient(
  base = '',
  fetchImpl: typeof fetch = (...args) => fetch(...args),
): RpcClient {
  const listeners = new Map<RpcEvent, Set<Listener>>();
  let source: EventSource | null = null;

  const connect = (): void => {
    if (source || typeof EventSource === 'undefined') return;
    source = new EventSource(`${base}/rpc/events`);
    for (const name of RPC_EVENTS) {
      source.addEventListener(name, (event) => {
        const payload = JSON.parse((event as MessageEvent<string>).data) as unknown;
        listeners.get(name)?.forEach((listener) => listener(payload));
      });
    }
  };

  return {
    async call<C extends RpcCall>(
      name: C,
      request: RpcRequest<C>,
      options: { signal?: AbortSignal } = {},
    ): Promise<RpcResponse<C>> {
      let response: Response;
      try {
        response = await fetchImpl(`${base}/rpc/${name}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(request ?? null),
          credentials: 'same-origin',
          signal: options.signal,
        });
      } catch (error) {
        if (options.signal?.aborted) throw error;
        throw new RpcError(
          'unavailable',
          'the Dataset Health engine cannot be reached: is `dataset-health serve --ui` running?',
        );
      }
      const body = (await response.json().catch(() => null)) as
        { result: RpcResponse<C> } | RpcErrorBody | null;
      if (body && 'result' in body && response.ok) return body.result;
      if (body && 'error' in body) throw new RpcError(body.error.code, body.error.message);
      throw new RpcError('internal', `the engine answered HTTP ${response.status} without a result`);
    },
    on<E extends RpcEvent>(name: E, listener: (payload: RpcEvents[E]) => void): () => void {
      connect();
      const set = listeners.get(name) ?? new Set<Listener>();
      listeners.set(name, set);
      set.add(listener as Listener);
      return () => set.delete(listener as Listener);
    },
  };
}
