import type { RpcBridge } from './rpc/ipcTransport';

declare global {
  interface Window {
    /** The preload's bridge (only inside the app). */
    datasetHealth?: RpcBridge;
  }
}
