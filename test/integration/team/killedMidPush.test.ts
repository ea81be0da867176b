/**
 * A desktop killed mid-push loses and doubles nothing (docs/decisions.md "On call as a team: members"):
 * its acknowledgement is in its store's outbox from the moment it is made; the team server stores a
 * push whose answer never came back, and the desktop, started again from its data directory, sends it
 * again — stored once, applied once, and then no longer waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acknowledgeDataset } from '../../../electron/knowledge/acknowledge';
import { Store } from '../../../electron/store/database';
import { openAcknowledgement } from '../../../electron/store/tables/acknowledgements';
import { teamLinkOf } from '../../../electron/store/tables/teamLinks';
import { operationsOf, outboxCount } from '../../../electron/store/tables/teamLog';
import { type TeamDatabase, openPglite } from '../../../electron/store/teamDb/driver';
import { migrateTeamDatabase } from '../../../electron/store/teamDb/migrations';
import { createTeamToken } from '../../../electron/store/teamDb/tokens';
import { TeamExchange } from '../../../electron/team/exchange';
import { askTeamServer, joinTeam } from '../../../electron/team/joining';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { mirrorTwoTroubles } from '../../helpers/teamMirror';
import { startTeamRoutes } from '../../helpers/team';

const ORG = 'acme';
let db: TeamDatabase;
let server: { url: string; close(): Promise<void> };

beforeAll(async () => {
  db = await openPglite(null);
  await migrateTeamDatabase(db);
  server = await startTeamRoutes(db);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await db?.close();
  removeTempDirs();
});

const exchange = (store: Store, token: string, fetcher?: typeof fetch) =>
  new TeamExchange({
    store,
    link: teamLinkOf(store, ORG)!,
    token,
    now: () => new Date(),
    backoff: { minMs: 10, maxMs: 20 },
    fetch: fetcher,
  });

describe('a desktop killed mid-push', () => {
  it('sends its change again when started again, and the team has it once', async () => {
    const dataDir = tempDir('dh-killed-');
    const token = (await createTeamToken(db, { orgId: ORG, member: 'Alice', role: 'member' }, new Date()))
      .token;
    let store = await Store.open({ dataDir });
    await mirrorTwoTroubles(store, ORG);
    joinTeam(store, await askTeamServer(server.url, token), token, new Date());
    acknowledgeDataset(store, ORG, 'ds-a', 'vendor ticket 4711', { by: 'x', now: new Date() });
    expect(outboxCount(store, ORG)).toBe(1);

    // The push reaches the server, which stores it; the answer never comes back (the desktop dies).
    const dying = exchange(store, token, async (input, init) => {
      const response = await fetch(input, init);
      if (init?.method === 'POST') throw new TypeError('fetch failed: the process was killed');
      return response;
    });
    dying.nudge();
    await dying.idle();
    await dying.stop();
    expect(await db.query('SELECT op_id FROM team_operations')).toHaveLength(1);
    expect(outboxCount(store, ORG)).toBe(1);

    // Started again from its data directory: the outbox is there, sent again, stored once.
    await store.close();
    store = await Store.open({ dataDir });
    try {
      expect(outboxCount(store, ORG)).toBe(1);
      const again = exchange(store, token);
      again.nudge();
      await again.idle();
      await again.stop();
      expect(await db.query('SELECT op_id FROM team_operations')).toHaveLength(1);
      expect(outboxCount(store, ORG)).toBe(0);
      expect(operationsOf(store, ORG)).toHaveLength(1);
      expect(openAcknowledgement(store, ORG, 'ds-a')).toMatchObject({
        by: 'Alice',
        note: 'vendor ticket 4711',
      });
    } finally {
      await store.close();
    }
  }, 60_000);
});

describe('a push the team server refuses', () => {
  it('takes back only the change the server names, and keeps the rest for a refusal of no change in particular', async () => {
    const token = (await createTeamToken(db, { orgId: ORG, member: 'Bob', role: 'member' }, new Date()))
      .token;
    const store = await Store.open({ dataDir: null });
    try {
      await mirrorTwoTroubles(store, ORG);
      joinTeam(store, await askTeamServer(server.url, token), token, new Date());
      acknowledgeDataset(store, ORG, 'ds-a', 'on it', { by: 'x', now: new Date() });
      // A proxy (or a Host the server does not serve) answers 403 about nothing in particular: kept.
      const proxied = exchange(store, token, async (input, init) =>
        init?.method === 'POST'
          ? new Response('<html>403 Forbidden</html>', { status: 403 })
          : fetch(input, init),
      );
      proxied.nudge();
      await proxied.idle();
      await proxied.stop();
      expect(proxied.status()).toMatchObject({ state: 'refused', waiting: 1 });
      expect(proxied.status().problem).toContain('403');
      expect(openAcknowledgement(store, ORG, 'ds-a')?.by).toBe('Bob');

      // The server itself refuses one operation, naming it (here: written as someone else): that one goes.
      store.run("UPDATE team_log SET author = 'Mallory' WHERE org_id = ?", [ORG]);
      const honest = exchange(store, token);
      honest.nudge();
      await honest.idle();
      await honest.stop();
      expect(honest.status()).toMatchObject({ state: 'online', waiting: 0 });
      expect(honest.status().problem).toContain('refused by the team server and taken back');
      expect(outboxCount(store, ORG)).toBe(0);
      // What the team decided without it: Alice's acknowledgement (the test above), now pulled.
      expect(openAcknowledgement(store, ORG, 'ds-a')).toMatchObject({
        by: 'Alice',
        note: 'vendor ticket 4711',
      });
      expect(operationsOf(store, ORG).map((op) => op.author)).toEqual(['Alice']);
    } finally {
      await store.close();
    }
  }, 60_000);
});
