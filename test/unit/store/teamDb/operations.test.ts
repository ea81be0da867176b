/**
 * The team server's operations (electron/store/teamDb/), on both engines it runs on: PGlite in-process
 * and a real PostgreSQL server (a throwaway cluster): versioned migrations, each id stored once and
 * never rewritten, pulls by cursor that never skip an operation while pushes race, and the wake-up of
 * every server on the database.
 */
import { describe, expect, it } from 'vitest';
import type { TeamOperation } from '../../../../shared/team';
import type { TeamDatabase } from '../../../../electron/store/teamDb/driver';
import { TEAM_MIGRATIONS, migrateTeamDatabase } from '../../../../electron/store/teamDb/migrations';
import {
  OPERATIONS_CHANNEL,
  OperationConflict,
  appendOperations,
  operationsAfter,
} from '../../../../electron/store/teamDb/operations';
import { useTeamDatabases } from '../../../helpers/teamDatabases';

let counter = 0;
/** An acknowledgement of `datasetId` by `author`, with a new id each time. */
function ack(orgId: string, datasetId: string, author = 'alice', note: string | null = null): TeamOperation {
  counter += 1;
  return {
    opId: `0190a000-0000-7000-8000-${String(counter).padStart(12, '0')}`,
    orgId,
    author,
    at: `2026-11-29T12:00:00.000Z#${String(counter % 10_000).padStart(4, '0')}`,
    kind: 'acknowledge',
    payload: { datasetId, deliveryId: `${datasetId}-1`, status: 'FAILED', note, causeId: null },
  };
}

const { engines: ENGINES, another } = useTeamDatabases('team');

/** Runs `test` on a new, migrated database of `open`, closed after. */
async function withDatabase(open: () => Promise<TeamDatabase>, test: (db: TeamDatabase) => Promise<void>) {
  const db = await open();
  try {
    await migrateTeamDatabase(db);
    await test(db);
  } finally {
    await db.close();
  }
}

describe.each(ENGINES)('the team database on %s', (_, open) => {
  it('migrates to the latest version once, and refuses one from a newer app', async () => {
    const db = await open();
    try {
      expect(await migrateTeamDatabase(db)).toBe(TEAM_MIGRATIONS.length);
      expect(await migrateTeamDatabase(db)).toBe(TEAM_MIGRATIONS.length);
      expect(await db.query('SELECT version FROM team_schema')).toEqual([
        { version: TEAM_MIGRATIONS.length },
      ]);
      await db.query('UPDATE team_schema SET version = version + 1');
      await expect(migrateTeamDatabase(db)).rejects.toThrow('made by a newer Dataset Health');
    } finally {
      await db.close();
    }
  });

  it('stores each operation once, in order, and refuses to rewrite one', () =>
    withDatabase(open, async (db) => {
      const first = [ack('acme', 'a'), ack('acme', 'b', 'bob', 'vendor ticket 4711')];
      const stored = await appendOperations(db, first);
      expect(stored.map((op) => op.opId)).toEqual(first.map((op) => op.opId));
      expect(stored[1]!.seq).toBeGreaterThan(stored[0]!.seq);
      // Sent again (its answer lost): nothing new.
      expect(await appendOperations(db, first)).toEqual([]);
      // The same id with another note: refused, and the push's new operation with it.
      const rewrite = {
        ...first[1]!,
        payload: { ...first[1]!.payload, note: 'not what bob said' },
      } as TeamOperation;
      await expect(appendOperations(db, [ack('acme', 'c'), rewrite])).rejects.toBeInstanceOf(
        OperationConflict,
      );
      const all = await operationsAfter(db, 'acme', 0, 100);
      expect(all.map(({ seq: _seq, ...op }) => op)).toEqual(first);
    }));

  it('reads an org’s operations after a cursor, a page at a time, and no other org’s', () =>
    withDatabase(open, async (db) => {
      const ours = [ack('acme', 'a'), ack('acme', 'b'), ack('acme', 'c')];
      await appendOperations(db, [ours[0]!, ack('other', 'x'), ours[1]!, ours[2]!]);
      const page = await operationsAfter(db, 'acme', 0, 2);
      expect(page.map((op) => op.opId)).toEqual([ours[0]!.opId, ours[1]!.opId]);
      const rest = await operationsAfter(db, 'acme', page.at(-1)!.seq, 2);
      expect(rest.map((op) => op.opId)).toEqual([ours[2]!.opId]);
      expect(await operationsAfter(db, 'acme', rest[0]!.seq, 2)).toEqual([]);
    }));

  it('wakes its listeners with the org of each push that stored something', () =>
    withDatabase(open, async (db) => {
      const heard: string[] = [];
      const stop = await db.listen(OPERATIONS_CHANNEL, (org) => heard.push(org));
      const op = ack('acme', 'a');
      await appendOperations(db, [op]);
      await appendOperations(db, [op]);
      await expect.poll(() => heard, { timeout: 5_000 }).toEqual(['acme']);
      await stop();
    }));
});

describe('two team servers on one PostgreSQL', () => {
  it('listen again after losing their connection, and say so (what was pushed meanwhile went unheard)', async () => {
    const one = await ENGINES[1]![1]();
    const other = await another(one);
    try {
      await migrateTeamDatabase(one);
      const heard: string[] = [];
      let resumed = 0;
      const stop = await one.listen(
        OPERATIONS_CHANNEL,
        (org) => heard.push(org),
        () => (resumed += 1),
      );
      // The server ends the listening connection, as a restart would: the process lives on.
      await other.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN ${OPERATIONS_CHANNEL}'`,
      );
      await expect.poll(() => resumed, { timeout: 10_000 }).toBe(1);
      await appendOperations(other, [ack('acme', 'after')]);
      await expect.poll(() => heard, { timeout: 5_000 }).toEqual(['acme']);
      await stop();
    } finally {
      await Promise.all([one.close(), other.close()]);
    }
  }, 60_000);

  it('let no pull pass a push still committing: a later push waits for it', async () => {
    const one = await ENGINES[1]![1]();
    const other = await another(one);
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    try {
      await migrateTeamDatabase(one);
      const [slow, fast] = [ack('acme', 'slow'), ack('acme', 'fast')];
      let reached!: () => void;
      const written = new Promise<void>((resolve) => (reached = resolve));
      // The first push has written, not committed; the second comes through the other server.
      const first = appendOperations(one, [slow], async () => {
        reached();
        await held;
      });
      await written;
      const second = appendOperations(other, [fast]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // A member pulling now must not see the second before the first: its cursor would pass the first.
      const early = await operationsAfter(other, 'acme', 0, 10);
      expect(early).toEqual([]);
      release();
      await Promise.all([first, second]);
      const all = await operationsAfter(other, 'acme', 0, 10);
      expect(all.map((op) => op.opId)).toEqual([slow.opId, fast.opId]);
    } finally {
      // A failed expectation must not leave the first push holding its connection.
      release();
      await new Promise((resolve) => setTimeout(resolve, 100));
      await Promise.all([one.close(), other.close()]);
    }
  }, 60_000);

  it('never let a pull skip an operation while pushes race, and wake each other', async () => {
    const one = await ENGINES[1]![1]();
    // The second server on the first's database.
    const other = await another(one);
    try {
      await Promise.all([migrateTeamDatabase(one), migrateTeamDatabase(other)]);
      const heard: string[] = [];
      const stop = await other.listen(OPERATIONS_CHANNEL, (org) => heard.push(org));
      const pushes = Array.from({ length: 40 }, (_, i) => [ack('acme', `ds-${i}`), ack('acme', `ds-${i}b`)]);
      const seen: string[] = [];
      let cursor = 0;
      let pushing = true;
      const pulling = (async () => {
        // A member pulling by cursor all along, as pushes commit on both servers at once.
        while (pushing || seen.length < pushes.length * 2) {
          const page = await operationsAfter(other, 'acme', cursor, 7);
          for (const op of page) seen.push(op.opId);
          if (page.length > 0) cursor = page.at(-1)!.seq;
          else await new Promise((resolve) => setTimeout(resolve, 2));
        }
      })();
      await Promise.all(pushes.map((ops, i) => appendOperations(i % 2 === 0 ? one : other, ops)));
      pushing = false;
      await pulling;
      expect(new Set(seen).size).toBe(pushes.length * 2);
      expect(seen.length).toBe(pushes.length * 2);
      await expect.poll(() => heard.length, { timeout: 5_000 }).toBe(pushes.length);
      await stop();
    } finally {
      await Promise.all([one.close(), other.close()]);
    }
  }, 60_000);
});
