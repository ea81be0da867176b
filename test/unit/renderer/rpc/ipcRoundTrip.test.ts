/**
 * The whole IPC path without Electron: the renderer's IPC client over the preload's bridge, over typed
 * fakes of ipcRenderer and ipcMain joined like Electron joins them, to the main side's handlers and the
 * real engine. Also: the bridge passes only the contract's calls and events.
 */
import type { IpcMain, IpcMainInvokeEvent, IpcRenderer, IpcRendererEvent, WebContents } from 'electron';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerRpcIpc } from '../../../../electron/main/rpcIpc';
import { createBridge } from '../../../../electron/preload/bridge';
import { createEventHub } from '../../../../electron/rpc/events';
import type { SourcesSync } from '../../../../electron/sync/sourcesSync';
import { createIpcClient } from '../../../../renderer/src/rpc/ipcTransport';
import { RpcError } from '../../../../shared/rpc';
import type { SourceState } from '../../../../shared/sync';
import { ENGINE_ORG, type EngineClient, engineClient } from '../../../helpers/engineClient';

type Handler = (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown;
type RendererListener = (event: IpcRendererEvent, ...args: unknown[]) => void;

let engine: EngineClient;
beforeEach(async () => {
  engine = await engineClient({ datasets: 30 });
});
afterEach(() => engine.close());

/** ipcMain and one window's ipcRenderer, wired as Electron wires them. */
function fakeIpc(windowId: number) {
  const handlers = new Map<string, Handler>();
  const listeners = new Map<string, Set<RendererListener>>();
  const invoked: string[] = [];
  const ipcMain = {
    handle: (channel: string, handler: Handler) => void handlers.set(channel, handler),
    removeHandler: (channel: string) => void handlers.delete(channel),
  } satisfies Pick<IpcMain, 'handle' | 'removeHandler'>;
  const ipcRenderer = {
    invoke: async (channel: string, ...args: unknown[]) => {
      invoked.push(channel);
      const handler = handlers.get(channel);
      if (!handler) throw new Error(`No handler registered for '${channel}'`);
      return handler({ sender: { id: windowId } } as unknown as IpcMainInvokeEvent, ...args);
    },
    on(channel: string, listener: RendererListener) {
      const set = listeners.get(channel) ?? new Set();
      listeners.set(channel, set);
      set.add(listener);
      return this as unknown as IpcRenderer;
    },
    removeListener(channel: string, listener: RendererListener) {
      listeners.get(channel)?.delete(listener);
      return this as unknown as IpcRenderer;
    },
  } satisfies Pick<IpcRenderer, 'invoke' | 'on' | 'removeListener'>;
  const webContents = {
    id: windowId,
    send: (channel: string, ...args: unknown[]) =>
      listeners.get(channel)?.forEach((listener) => listener({} as IpcRendererEvent, ...args)),
  } satisfies Pick<WebContents, 'id' | 'send'>;
  return { ipcMain, ipcRenderer, window: { webContents: webContents as unknown as WebContents }, invoked };
}

function fakeSync() {
  const stateListeners = new Set<(state: SourceState) => void>();
  const sync = {
    onCycle: () => () => undefined,
    onState: (listener: (state: SourceState) => void) => {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
  } satisfies Pick<SourcesSync, 'onCycle' | 'onState'>;
  return { sync, emit: (state: SourceState) => stateListeners.forEach((listener) => listener(state)) };
}

describe('IPC round trip', () => {
  it('a renderer call reaches the engine and its answer (or its error, with the code) comes back', async () => {
    const ipc = fakeIpc(3);
    const { sync } = fakeSync();
    registerRpcIpc({
      ipcMain: ipc.ipcMain,
      dispatch: (name, request) => engine.client.call(name as never, request as never),
      events: createEventHub(sync),
      windows: () => [ipc.window],
    });
    const client = createIpcClient(createBridge(ipc.ipcRenderer) as Parameters<typeof createIpcClient>[0]);

    const counts = await client.call('datasets.counts', {
      orgId: ENGINE_ORG,
      filters: [],
      search: '',
      sort: '',
    });
    expect(counts.total).toBe(30);
    expect(ipc.invoked).toEqual(['dh:rpc:datasets.counts']);

    const refused = client.call('datasets.counts', {
      orgId: ENGINE_ORG,
      filters: ['deliveryStatus.eq.NOPE'],
      search: '',
      sort: '',
    });
    await expect(refused).rejects.toBeInstanceOf(RpcError);
    await expect(refused).rejects.toMatchObject({
      code: 'invalid-argument',
      message: expect.stringMatching(/NOPE/),
    });
  });

  it('events reach the renderer listener (without the IPC event), until it unsubscribes', () => {
    const ipc = fakeIpc(3);
    const { sync, emit } = fakeSync();
    registerRpcIpc({
      ipcMain: ipc.ipcMain,
      dispatch: async () => null,
      events: createEventHub(sync),
      windows: () => [ipc.window],
    });
    const client = createIpcClient(createBridge(ipc.ipcRenderer) as Parameters<typeof createIpcClient>[0]);
    const seen: SourceState[] = [];
    const unsubscribe = client.on('source.state', (state) => seen.push(state));
    const state = { sourceId: 'a', orgId: ENGINE_ORG, phase: 'idle' } as SourceState;
    emit(state);
    unsubscribe();
    emit({ ...state, phase: 'syncing' });
    expect(seen).toEqual([state]);
  });

  it('the bridge passes only the contract: other calls and events never reach IPC', async () => {
    const ipc = fakeIpc(3);
    const bridge = createBridge(ipc.ipcRenderer);
    await expect(bridge.invoke('shell.openExternal', 'file:///etc/passwd')).rejects.toThrow(
      "no such call 'shell.openExternal'",
    );
    await expect(bridge.invoke('__proto__', null)).rejects.toThrow("no such call '__proto__'");
    expect(() => bridge.on('dh:rpc:keys.create', () => undefined)).toThrow(
      "no such event 'dh:rpc:keys.create'",
    );
    expect(ipc.invoked).toEqual([]);
  });
});
