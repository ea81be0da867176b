/**
 * The database store against the real engine's handlers: the status from the call, then from events
 * (the disk refusing writes, and accepting them again); an answer on its way never overwrites a newer
 * event; an engine that cannot be asked leaves the frame to say why.
 */
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createApp } from 'vue';
import { RPC_CLIENT } from '../../../../renderer/src/rpc/client';
import { useDatabaseState } from '../../../../renderer/src/state/database';
import type { DatabaseStatus } from '../../../../shared/database';
import { type RpcClient, RpcError } from '../../../../shared/rpc';
import { type EngineClient, engineClient } from '../../../helpers/engineClient';

let engine: EngineClient;
beforeEach(async () => {
  engine = await engineClient({ datasets: 5 });
});
afterEach(() => engine.close());

function databaseStore(client: RpcClient = engine.client) {
  const app = createApp({});
  app.provide(RPC_CLIENT, client);
  const pinia = createPinia();
  app.use(pinia);
  setActivePinia(pinia);
  return app.runWithContext(() => useDatabaseState());
}

const refusing = (dataDir: string): DatabaseStatus => ({
  state: 'open',
  dataDir,
  opening: null,
  writeProblem: {
    message: `could not write to ${dataDir} (ENOSPC: no space left on device, write); 4,096 bytes of committed changes are kept in memory and will be written when the disk accepts them`,
    since: '2026-11-21T04:40:00.000Z',
    pendingBytes: 4096,
  },
});

it('loads the status, then follows the disk refusing writes and accepting them again', async () => {
  const database = databaseStore();
  expect(database.known).toBe(false);
  await database.start();
  expect(database).toMatchObject({ known: true, opening: false, writeProblem: null });
  expect(database.status).toEqual({
    state: 'open',
    dataDir: engine.dataDir,
    opening: null,
    writeProblem: null,
  });
  engine.emit('database.status', refusing(engine.dataDir));
  expect(database.writeProblem?.pendingBytes).toBe(4096);
  engine.emit('database.status', { ...refusing(engine.dataDir), writeProblem: null });
  expect(database.writeProblem).toBeNull();
});

it('an answer on its way when an event arrived does not overwrite that newer status', async () => {
  let answer: (status: DatabaseStatus) => void = () => undefined;
  const client: RpcClient = {
    on: engine.client.on,
    call: ((name, request, options) =>
      name === 'database.status'
        ? new Promise<DatabaseStatus>((resolve) => (answer = resolve))
        : engine.client.call(name, request, options)) as RpcClient['call'],
  };
  const database = databaseStore(client);
  const opening: DatabaseStatus = {
    state: 'opening',
    dataDir: engine.dataDir,
    opening: { bytes: 1_000_000, since: '2026-11-21T04:40:00.000Z' },
    writeProblem: null,
  };
  const starting = database.start();
  engine.emit('database.status', { ...opening, state: 'open', opening: null });
  answer(opening);
  await starting;
  expect(database.opening).toBe(false);
});

it('an engine that cannot be asked: known, with no status (the frame says why)', async () => {
  const client: RpcClient = {
    on: engine.client.on,
    call: (async () => {
      throw new RpcError('unauthenticated', 'not signed in: open the link serve printed');
    }) as RpcClient['call'],
  };
  const database = databaseStore(client);
  await database.start();
  expect(database).toMatchObject({ known: true, status: null, opening: false, writeProblem: null });
});
