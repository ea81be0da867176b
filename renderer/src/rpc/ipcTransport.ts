/** The app's transport: the preload's narrow bridge (validated channels, never raw ipcRenderer). */
import type { RpcCall, RpcClient, RpcEvent, RpcEvents, RpcRequest, RpcResponse } from '../../../shared/rpc';
import { RpcError, type RpcErrorBody } from '../../../shared/rpc';

/** What the preload exposes as `window.datasetHealth` (electron/preload/index.ts implements it). */
export interface RpcBridge {
  /** Resolves with `{ result }` or `{ error }` (errors thrown across IPC lose their fields). */
  invoke(name: string, request: unknown): Promise<{ result: unknown } | RpcErrorBody>;
  on(name: string, listener: (payload: unknown) => void): () => void;
}

export function createIpcClient(bridge: RpcBridge): RpcClient {
  return {
    async call<C extends RpcCall>(name: C, request: RpcRequest<C>): Promise<RpcResponse<C>> {
      const answer = await bridge.invoke(name, request ?? null);
      if ('error' in answer) throw new RpcError(answer.error.code, answer.error.message);
      return answer.result as RpcResponse<C>;
    },
    on<E extends RpcEvent>(name: E, listener: (payload: RpcEvents[E]) => void): () => void {
      return bridge.on(name, listener as (payload: unknown) => void);
    },
  };
}
