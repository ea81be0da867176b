/**
 * What the preload exposes as `window.datasetHealth`: only the contract's calls and events pass, each on
 * its own `dh:` channel, so a compromised page cannot reach any other channel of the main process.
 * Built over an injected ipcRenderer so tests run it against a typed fake.
 */
import type { IpcRenderer, IpcRendererEvent } from 'electron';
import { RPC_EVENTS, type RpcEvent, isRpcCall } from '../../shared/rpc';
import { rpcCallChannel, rpcEventChannel } from './channels';

export function createBridge(ipcRenderer: Pick<IpcRenderer, 'invoke' | 'on' | 'removeListener'>) {
  return {
    invoke(name: string, request: unknown): Promise<unknown> {
      if (!isRpcCall(name)) return Promise.reject(new Error(`no such call '${name}'`));
      return ipcRenderer.invoke(rpcCallChannel(name), request);
    },
    on(name: string, listener: (payload: unknown) => void): () => void {
      if (!RPC_EVENTS.includes(name as RpcEvent)) throw new Error(`no such event '${name}'`);
      const channel = rpcEventChannel(name as RpcEvent);
      // The page never sees the IPC event object (it carries the sender).
      const forward = (_event: IpcRendererEvent, payload: unknown): void => listener(payload);
      ipcRenderer.on(channel, forward);
      return () => void ipcRenderer.removeListener(channel, forward);
    },
  };
}

export type Bridge = ReturnType<typeof createBridge>;
