/**
 * The database's status through the running engine (issue 12 item 2): a real store on a temp folder
 * whose disk the test fills (journal writes on /dev/full fail with ENOSPC). The window's call and event
 * say what is refused and how much waits; the local API and the window's calls keep working; once the
 * disk accepts writes again the status says so, and nothing committed meanwhile is lost.
 */
import { afterEach, expect, it } from 'vitest';
import type { DatabaseStatus } from '../../../shared/database';
import type { RpcEvent } from '../../../shared/rpc';
import { databaseStatus } from '../../../electron/rpc/database';
import { Store } from '../../../electron/store/database';
import { listApiKeys } from '../../../electron/store/tables/apiKeys';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { fill, fillableDisk } from '../../helpers/fullDisk';
import { startInstance, stopInstances } from '../../helpers/instance';

const NOW = new Date('2026-11-21T04:41:00.000Z');

afterEach(async () => {
  await stopInstances();
  removeTempDirs();
});

it('reports a full disk in the status call and event, keeps serving, and loses nothing', async () => {
  const dataDir = tempDir('dh-database-');
  const disk = fillableDisk();
  const instance = await startInstance(dataDir, { now: () => NOW, openJournal: disk.openJournal });
  const { store, engine } = instance;
  const heard: { name: RpcEvent; payload: unknown }[] = [];
  engine.rpc.events.subscribe((name, payload) => heard.push({ name, payload }));
  const statuses = () =>
    heard.filter((event) => event.name === 'database.status').map((event) => event.payload as DatabaseStatus);
  const status = () => engine.rpc.dispatch('database.status', null) as Promise<DatabaseStatus>;

  expect(await status()).toEqual({ state: 'open', dataDir, opening: null, writeProblem: null });
  await store.whenIdle(() => store.transaction(() => ensureOrg(store, 'acme', NOW)));
  await fill(disk, store);

  // A change from the window while the disk is full: it is committed, and waits in memory.
  const created = (await engine.rpc.dispatch('keys.create', { orgId: 'acme', name: 'while full' })) as {
    key: string;
  };
  await expect(store.flush()).rejects.toThrow(/ENOSPC/);
  const refused = await status();
  expect(refused.writeProblem).toEqual({
    message: expect.stringMatching(
      new RegExp(`^could not write to ${dataDir} \\(ENOSPC: no space left on device.*kept in memory`),
    ),
    since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    pendingBytes: expect.any(Number),
  });
  expect(refused.writeProblem!.pendingBytes).toBeGreaterThan(0);
  expect(statuses()).toEqual([refused]);

  // Still serving: the window's reads, and the local API with the key made while the disk was full.
  expect(await engine.rpc.dispatch('keys.list', null)).toHaveLength(1);
  const answer = await fetch(`${engine.api.url}/v2/ops/health/datasets/deliveries`, {
    headers: { authorization: `Bearer ${created.key}` },
  });
  expect(answer.status).toBe(200);

  disk.full = false;
  await store.flush();
  expect(await status()).toEqual({ state: 'open', dataDir, opening: null, writeProblem: null });
  expect(statuses()).toEqual([refused, { state: 'open', dataDir, opening: null, writeProblem: null }]);

  await instance.stop();
  const reopened = await Store.open({ dataDir });
  try {
    expect(listApiKeys(reopened).map((key) => key.name)).toEqual(['while full']);
  } finally {
    await reopened.close();
  }
});

it('a database kept in memory never has a write problem', async () => {
  const store = await Store.open({ dataDir: null });
  expect(databaseStatus(store, '/nowhere')).toEqual({
    state: 'open',
    dataDir: '/nowhere',
    opening: null,
    writeProblem: null,
  });
  await store.close();
});
