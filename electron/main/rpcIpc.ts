/**
 * The IPC transport of the RPC contract, main side: one handler per call channel, answering
 * `{ result }` or `{ error }` (an Error thrown across IPC loses its code), and every engine event sent to
 * the app's windows. Only our own windows' frames are answered.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { RPC_CALLS, type RpcCall, RpcError } from '../../shared/rpc';
import { type Dispatch, errorBody, toRpcError } from '../rpc/dispatch';
import type { EventHub } from '../rpc/events';
import { rpcCallChannel, rpcEventChannel } from '../preload/channels';

export interface RpcIpcOptions {
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>;
  dispatch: Dispatch;
  events: EventHub;
  /** The windows that may call and receive events. */
  windows: () => { webContents: Pick<WebContents, 'id' | 'send'> }[];
}

/** Registers the handlers; returns the function that removes them again. */
export function registerRpcIpc(options: RpcIpcOptions): () => void {
  const ours = (event: IpcMainInvokeEvent): boolean =>
    options.windows().some((window) => window.webContents.id === event.sender.id);
  const names = Object.keys(RPC_CALLS) as RpcCall[];
  for (const name of names) {
    options.ipcMain.handle(rpcCallChannel(name), async (event, request: unknown) => {
      if (!ours(event))
        return errorBody(new RpcError('unauthenticated', 'calls are accepted from the app window only'));
      try {
        return { result: (await options.dispatch(name, request)) ?? null };
      } catch (error) {
        return errorBody(toRpcError(error));
      }
    });
  }
  const unsubscribe = options.events.subscribe((name, payload) => {
    for (const window of options.windows()) window.webContents.send(rpcEventChannel(name), payload);
  });
  return () => {
    unsubscribe();
    for (const name of names) options.ipcMain.removeHandler(rpcCallChannel(name));
  };
}
