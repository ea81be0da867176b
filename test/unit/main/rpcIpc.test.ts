/**
 * The IPC transport, main side, against typed fakes of Electron's ipcMain and windows (the fakes
 * `satisfies Pick<Electron.X, …>`, so they cannot drift from the real API): every contract call has a
 * handler, answers travel as { result } / { error }, other senders are refused, events reach windows.
 */
import { memorySettings } from '../../../electron/store/tables/settings';
import type { BrowserWindow, IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerRpcIpc } from '../../../electron/main/rpcIpc';
import { rpcCallChannel } from '../../../electron/preload/channels';
import { RPC_CALLS, type RpcCall } from '../../../shared/rpc';
import { ENGINE_ORG, type EngineClient, engineClient } from '../../helpers/engineClient';
import { createDispatch } from '../../../electron/rpc/dispatch';
import { createRpcHandlers } from '../../../electron/rpc/handlers';
import { createEventHub } from '../../../electron/rpc/events';
import { SourcesSync } from '../../../electron/sync/sourcesSync';
import { envSecretKeeper } from '../../../electron/sync/secrets';
import type { SourceState } from '../../../shared/sync';

type Handler = (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown;

function fakeIpcMain() {
  const handlers = new Map<string, Handler>();
  const ipcMain = {
    handle: (channel: string, listener: Handler) => void handlers.set(channel, listener),
    removeHandler: (channel: string) => void handlers.delete(channel),
  } satisfies Pick<IpcMain, 'handle' | 'removeHandler'>;
  return { ipcMain, handlers };
}

function fakeWindow(id: number) {
  const sent: [string, unknown][] = [];
  const webContents = {
    id,
    send: (channel: string, ...args: unknown[]) => void sent.push([channel, args[0]]),
  };
  const window = { webContents: webContents as unknown as WebContents } satisfies Pick<
    BrowserWindow,
    'webContents'
  >;
  return { window, sent, webContents: webContents satisfies Pick<WebContents, 'id' | 'send'> };
}

const from = (id: number) => ({ sender: { id } }) as unknown as IpcMainInvokeEvent;

let engine: EngineClient;
beforeEach(async () => {
  engine = await engineClient({ datasets: 20 });
});
afterEach(() => engine.close());

function wire() {
  const { ipcMain, handlers } = fakeIpcMain();
  const own = fakeWindow(7);
  const secrets = envSecretKeeper({});
  const sync = new SourcesSync({ store: engine.store, secrets, now: () => new Date() });
  const events = createEventHub(sync);
  const dispatch = createDispatch(
    createRpcHandlers({
      store: engine.store,
      sync,
      secrets,
      now: () => new Date(),
      runtime: { apiUrl: 'http://127.0.0.1:1', dataDir: '/tmp/x', version: '0.1.0' },
      overridden: [],
      reloadSync: async () => undefined,
      settings: memorySettings(),
    }),
  );
  const unregister = registerRpcIpc({ ipcMain, dispatch, events, windows: () => [own.window] });
  return { handlers, own, sync, unregister };
}

describe('IPC transport (main side)', () => {
  it('registers one dh:rpc channel per contract call, and removes them again', () => {
    const { handlers, unregister } = wire();
    expect([...handlers.keys()].sort()).toEqual(
      (Object.keys(RPC_CALLS) as RpcCall[]).map(rpcCallChannel).sort(),
    );
    unregister();
    expect(handlers.size).toBe(0);
  });

  it('answers { result } for a good call and { error } with the code for a bad one', async () => {
    const { handlers } = wire();
    const orgs = (await handlers.get(rpcCallChannel('orgs.list'))!(from(7), null)) as {
      result: { id: string }[];
    };
    expect(orgs.result.map((org) => org.id)).toContain(ENGINE_ORG);
    const bad = await handlers.get(rpcCallChannel('dataset.get'))!(from(7), { orgId: ENGINE_ORG });
    expect(bad).toEqual({
      error: { code: 'invalid-argument', message: expect.stringMatching(/^dataset\.get: request/) },
    });
  });

  it('refuses calls from any other web contents', async () => {
    const { handlers } = wire();
    const answer = await handlers.get(rpcCallChannel('keys.list'))!(from(99), null);
    expect(answer).toEqual({
      error: { code: 'unauthenticated', message: 'calls are accepted from the app window only' },
    });
  });

  it('sends engine events to our windows on dh:event channels', () => {
    const { ipcMain } = fakeIpcMain();
    const own = fakeWindow(7);
    let emitState: ((state: SourceState) => void) | undefined;
    const sync = {
      onCycle: () => () => undefined,
      onState: (listener: (state: SourceState) => void) => {
        emitState = listener;
        return () => undefined;
      },
    } satisfies Pick<SourcesSync, 'onCycle' | 'onState'>;
    registerRpcIpc({
      ipcMain,
      dispatch: async () => null,
      events: createEventHub(sync),
      windows: () => [own.window],
    });
    const state = { sourceId: 's', orgId: ENGINE_ORG, phase: 'syncing' } as SourceState;
    emitState!(state);
    expect(own.sent).toEqual([['dh:event:source.state', state]]);
  });
});
