/**
 * The sandboxed preload: a narrow typed bridge, never raw ipcRenderer. Only the contract's calls and
 * events pass (shared/rpc.ts), each on its own `dh:` channel, so a compromised page cannot reach any
 * other channel of the main process.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { RPC_EVENTS, type RpcEvent, isRpcCall } from '../../shared/rpc';
import { rpcCallChannel, rpcEventChannel } from './channels';

const bridge = {
  invoke(name: string, request: unknown): Promise<unknown> {
    if (!isRpcCall(name)) return Promise.reject(new Error(`no such call '${name}'`));
    return ipcRenderer.invoke(rpcCallChannel(name), request);
  },
  on(name: string, listener: (payload: unknown) => void): () => void {
    if (!RPC_EVENTS.includes(name as RpcEvent)) throw new Error(`no such event '${name}'`);
    const channel = rpcEventChannel(name as RpcEvent);
    // The renderer never sees the IPC event object (it carries the sender).
    const forward = (_event: Electron.IpcRendererEvent, payload: unknown): void => listener(payload);
    ipcRenderer.on(channel, forward);
    return () => void ipcRenderer.removeListener(channel, forward);
  },
};

contextBridge.exposeInMainWorld('datasetHealth', bridge);
export type Bridge = typeof bridge;
