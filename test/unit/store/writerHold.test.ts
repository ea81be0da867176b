/**
 * The writer hold an export takes (Store.holdingWriters, docs/decisions.md "Export in slices"): while it
 * is held, readers go on (whenReadable) and writers wait (whenIdle, a chunked transaction) — none fails —
 * so what the holder reads across turns is the data of one moment; a write that did not wait, or one
 * inside whenReadable, is refused before anything changes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Store, StoreBusyError, StoreReadOnlyError } from '../../../electron/store/database';
import { ensureOrg } from '../../../electron/store/tables/orgs';

const NOW = new Date('2026-11-21T04:41:00.000Z');
const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

async function open(): Promise<Store> {
  const store = await Store.open({ dataDir: null });
  stores.push(store);
  return store;
}

const orgs = (store: Store) => store.column<string>('SELECT id FROM orgs ORDER BY id');

/** Lets every timer, I/O callback and promise waiting on the loop run a few times over. */
const turns = async (count = 5) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** A hold taken until `release` is called, and what its holder read at its start and end. */
function holding(store: Store) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let started = false;
  const seen: string[][] = [];
  const done = store.holdingWriters(async () => {
    started = true;
    seen.push(orgs(store));
    await gate;
    seen.push(orgs(store));
  });
  return { done, release, seen, started: () => started };
}

/** Whether a promise settled yet (looked at after `turns`). */
function settled<T>(promise: Promise<T>): () => boolean {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  return () => done;
}

describe('a writer hold', () => {
  it('readers go on; writers wait for its end, then write; the holder saw one moment', async () => {
    const store = await open();
    ensureOrg(store, 'a', NOW);
    const hold = holding(store);
    await turns();
    expect(hold.started()).toBe(true);

    expect(await store.whenReadable(() => orgs(store))).toEqual(['a']);
    expect(orgs(store)).toEqual(['a']);
    const plain = store.whenIdle(() => ensureOrg(store, 'b', NOW));
    const chunked = store.transactionInChunks(async (slice) => {
      await slice(() => ensureOrg(store, 'c', NOW));
    });
    const plainDone = settled(plain);
    const chunkedDone = settled(chunked);
    await turns();
    expect([plainDone(), chunkedDone()]).toEqual([false, false]);
    expect(orgs(store)).toEqual(['a']);

    hold.release();
    await Promise.all([hold.done, plain, chunked]);
    expect(hold.seen).toEqual([['a'], ['a']]);
    expect(orgs(store)).toEqual(['a', 'b', 'c']);
  });

  it('a write that did not wait is refused while it is held, and nothing changes', async () => {
    const store = await open();
    const hold = holding(store);
    await turns();
    expect(() => ensureOrg(store, 'x', NOW)).toThrow(StoreBusyError);
    expect(() => ensureOrg(store, 'x', NOW)).toThrow('an export in progress');
    hold.release();
    await hold.done;
    expect(orgs(store)).toEqual([]);
    ensureOrg(store, 'x', NOW);
    expect(orgs(store)).toEqual(['x']);
  });

  it('a write inside whenReadable is refused (a bug), held or not, before anything changes', async () => {
    const store = await open();
    await expect(store.whenReadable(() => ensureOrg(store, 'x', NOW))).rejects.toThrow(StoreReadOnlyError);
    expect(orgs(store)).toEqual([]);
    // Outside it, the same write goes through.
    await store.whenIdle(() => ensureOrg(store, 'x', NOW));
    expect(orgs(store)).toEqual(['x']);
  });

  it('waits for a chunked transaction in progress, and readers wait for that one too', async () => {
    const store = await open();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const commit = store.transactionInChunks(async (slice) => {
      await slice(() => ensureOrg(store, 'a', NOW));
      await gate;
      await slice(() => ensureOrg(store, 'b', NOW));
    });
    await turns();
    const hold = holding(store);
    const read = store.whenReadable(() => orgs(store));
    await turns();
    expect(hold.started()).toBe(false);
    release();
    await commit;
    expect(await read).toEqual(['a', 'b']);
    hold.release();
    await hold.done;
    expect(hold.seen[0]).toEqual(['a', 'b']);
  });

  it('a new hold waits for the writers already waiting, so exports one after another never starve a sync', async () => {
    const store = await open();
    const first = holding(store);
    await turns();
    const sync = store.transactionInChunks(async (slice) => {
      await slice(() => ensureOrg(store, 'synced', NOW));
    });
    const second = holding(store);
    await turns();
    expect(second.started()).toBe(false);
    first.release();
    await Promise.all([first.done, sync]);
    await turns();
    expect(second.started()).toBe(true);
    expect(second.seen[0]).toEqual(['synced']);
    second.release();
    await second.done;
  });

  it('holds overlap: writers wait for the last one; closing the store waits for them all', async () => {
    const store = await Store.open({ dataDir: null });
    const first = holding(store);
    const second = holding(store);
    await turns();
    expect([first.started(), second.started()]).toEqual([true, true]);
    const write = store.whenIdle(() => ensureOrg(store, 'late', NOW));
    const written = settled(write);
    const closing = store.close();
    const closed = settled(closing);
    first.release();
    await first.done;
    await turns();
    expect(written()).toBe(false);
    expect(closed()).toBe(false);
    second.release();
    await Promise.all([second.done, write]);
    await closing;
  });
});
