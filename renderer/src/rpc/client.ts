/**
 * The RPC client every state and view uses, provided once at the app's root: over the preload bridge
 * inside the app, over HTTP in a browser. Tests provide their own (e.g. one wired to the real engine).
 */
import { type InjectionKey, inject } from 'vue';
import type { RpcClient } from '../../../shared/rpc';
import { createHttpClient } from './httpTransport';
import { createIpcClient } from './ipcTransport';

export const RPC_CLIENT: InjectionKey<RpcClient> = Symbol('rpc client');

export function defaultClient(): RpcClient {
  return window.datasetHealth ? createIpcClient(window.datasetHealth) : createHttpClient();
}

export function useRpc(): RpcClient {
  const client = inject(RPC_CLIENT);
  if (!client) throw new Error('no RPC client provided (app.provide(RPC_CLIENT, …))');
  return client;
}
