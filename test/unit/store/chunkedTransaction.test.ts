/**
 * Chunked transactions (a sync commit in slices): whole or nothing, and nobody sees or writes into one
 * half done — other users wait through whenIdle, or get StoreBusyError if they did not.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Store, StoreBusyError } from '../../../electron/store/database';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import { removeTempDirs, tempDir } from '../../helpers/cli';

const NOW = new Date('2026-11-21T04:41:00.000Z');
const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  removeTempDirs();
});

async function open(dataDir: string | null = null): Promise<Store> {
  const store = await Store.open({ dataDir, debounceMs: 5 });
  stores.push(store);
  return store;
}

const orgs = (store: Store) => store.column<string>('SELECT id FROM orgs ORDER BY id');

describe('transactionInChunks', () => {
  it('commits every slice together, and renews the data revision once', async () => {
    const store = await open();
    const revision = store.dataRevision;
    await store.transactionInChunks(async (slice) => {
      for (const id of ['a', 'b', 'c']) await slice(() => ensureOrg(store, id, NOW));
    });
    expect(orgs(store)).toEqual(['a', 'b', 'c']);
    expect(store.dataRevision).not.toBe(revision);
  });

  it('rolls every slice back when one fails', async () => {
    const store = await open();
    ensureOrg(store, 'before', NOW);
    await expect(
      store.transactionInChunks(async (slice) => {
        await slice(() => ensureOrg(store, 'a', NOW));
        await slice(() => {
          throw new Error('remote went away');
        });
      }),
    ).rejects.toThrow('remote went away');
    expect(orgs(store)).toEqual(['before']);
  });

  it('between slices, other users wait (whenIdle) or are refused, so a half-done commit is never seen', async () => {
    const store = await open();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const commit = store.transactionInChunks(async (slice) => {
      await slice(() => ensureOrg(store, 'a', NOW));
      await gate;
      await slice(() => ensureOrg(store, 'b', NOW));
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.busy).toBe(true);
    expect(() => orgs(store)).toThrow(StoreBusyError);
    expect(() => ensureOrg(store, 'x', NOW)).toThrow(StoreBusyError);
    const seen = store.whenIdle(() => orgs(store));
    release();
    await commit;
    expect(await seen).toEqual(['a', 'b']);
    expect(store.busy).toBe(false);
  });

  it('a second chunked transaction waits for the first', async () => {
    const store = await open();
    const order: string[] = [];
    const first = store.transactionInChunks(async (slice) => {
      await slice(() => order.push('first 1'));
      await slice(() => order.push('first 2'));
    });
    const second = store.transactionInChunks(async (slice) => {
      await slice(() => order.push('second'));
    });
    await Promise.all([first, second]);
    expect(order).toEqual(['first 1', 'first 2', 'second']);
  });

  it('a save waits for the commit: the file never holds half of one', async () => {
    const dir = tempDir();
    const store = await open(dir);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    ensureOrg(store, 'before', NOW);
    const commit = store.transactionInChunks(async (slice) => {
      await slice(() => ensureOrg(store, 'a', NOW));
      await gate;
      await slice(() => ensureOrg(store, 'b', NOW));
    });
    const flushed = store.flush();
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await Promise.all([commit, flushed]);
    await store.close();
    stores.splice(stores.indexOf(store), 1);
    const reopened = await open(dir);
    expect(orgs(reopened)).toEqual(['a', 'b', 'before']);
  });
});
