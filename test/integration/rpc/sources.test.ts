/**
 * Sources from the settings window against the remote simulator on loopback: "Test connection" says
 * whether the remote accepts the key, and a stored key is never sent to an address it was not given for.
 */
import { memorySettings } from '../../../electron/store/tables/settings';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RemoteSimulator, startRemoteSimulator } from '../../../electron/demo/remote/server';
import { createDispatch } from '../../../electron/rpc/dispatch';
import { createRpcHandlers } from '../../../electron/rpc/handlers';
import { Store } from '../../../electron/store/database';
import { SourcesSync } from '../../../electron/sync/sourcesSync';
import type { SecretKeeper } from '../../../electron/sync/secrets';
import { RpcError } from '../../../shared/rpc';

const NOW = new Date('2026-11-21T04:41:00.000Z');
const KEY = 'remote-key-1';

let remote: RemoteSimulator;
let other: RemoteSimulator;
let store: Store;
let dispatch: ReturnType<typeof createDispatch>;

beforeAll(async () => {
  [remote, other] = await Promise.all([
    startRemoteSimulator({ port: 0, apiKey: KEY, datasets: 5 }),
    startRemoteSimulator({ port: 0, apiKey: 'another', datasets: 5 }),
  ]);
  store = await Store.open({ dataDir: null });
  // The app's secret keeper seals keys; here "sealing" keeps them in a map, as the shell's does behind safeStorage.
  const sealed = new Map<string, string>();
  const secrets: SecretKeeper = {
    apiKeyFor: (source) => (source.apiKeySealed ? (sealed.get(source.apiKeySealed) ?? null) : null),
    hint: 'enter the key in Settings',
    seal: (key) => {
      const id = `sealed-${sealed.size}`;
      sealed.set(id, key);
      return id;
    },
  };
  const sync = new SourcesSync({ store, secrets, now: () => NOW });
  dispatch = createDispatch(
    createRpcHandlers({
      store,
      sync,
      secrets,
      now: () => NOW,
      runtime: { apiUrl: 'http://127.0.0.1:1', dataDir: '/nonexistent', version: '0.1.0' },
      overridden: [],
      reloadSync: async () => undefined,
      settings: memorySettings(),
    }),
  );
});

afterAll(async () => {
  await Promise.all([remote?.close(), other?.close()]);
  await store?.close();
});

const source = (changes: Record<string, unknown> = {}) => ({
  id: null,
  orgId: 'acme',
  name: 'Acme',
  baseUrl: remote.url,
  enabled: true,
  apiKey: KEY,
  ...changes,
});

describe('sources from the window', () => {
  it('"Test connection" reports an accepted key, and a rejected one with the remote\'s answer', async () => {
    expect(await dispatch('sources.test', source())).toEqual({
      ok: true,
      message: `Connected to ${new URL(remote.url).host}: the key is accepted and datasets can be listed`,
    });
    const refused = (await dispatch('sources.test', source({ apiKey: 'wrong' }))) as {
      ok: boolean;
      message: string;
    };
    expect(refused.ok).toBe(false);
    expect(refused.message).toMatch(/401/);
  });

  it('saves a source with its key sealed; a changed address needs the key again, and gets nothing sent', async () => {
    const saved = (await dispatch('sources.save', source())) as { id: string; hasKey: boolean };
    expect(saved).toMatchObject({ id: 'acme', hasKey: true });
    expect(await dispatch('sources.test', source({ id: 'acme', apiKey: null }))).toMatchObject({ ok: true });

    const before = other.requests.length;
    const moved = source({ id: 'acme', apiKey: null, baseUrl: other.url });
    await expect(dispatch('sources.test', moved)).rejects.toThrow(
      /address changed .* enter the API key again/,
    );
    await expect(dispatch('sources.save', moved)).rejects.toBeInstanceOf(RpcError);
    expect(other.requests.length).toBe(before);
    // With the key given again, the new address is fine.
    expect(await dispatch('sources.save', { ...moved, apiKey: 'another' })).toMatchObject({
      baseUrl: other.url,
    });
  });
});
