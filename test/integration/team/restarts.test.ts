/**
 * A team on PostgreSQL served by two team servers (docs/decisions.md "On call as a team"): a member of
 * one sees what a member of the other did (NOTIFY wakes the other server, whose event stream wakes its
 * member); and PostgreSQL killed and started again while a member pushes loses nothing and doubles
 * nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RemoteSimulator } from '../../../electron/demo/remote/server';
import { openAcknowledgement } from '../../../electron/store/tables/acknowledgements';
import { operationsOf, outboxCount } from '../../../electron/store/tables/teamLog';
import type { TeamDatabase } from '../../../electron/store/teamDb/driver';
import { migrateTeamDatabase } from '../../../electron/store/teamDb/migrations';
import { removeTempDirs } from '../../helpers/cli';
import {
  type Member,
  TEAM_ORG,
  type TeamServer,
  failedIn,
  startMember,
  startSimulator,
  startTeamServer,
  teamToken,
  until,
} from '../../helpers/team';
import { useTeamDatabases } from '../../helpers/teamDatabases';

// Killed mid-push, a server must lose nothing it acknowledged: commits wait for their WAL (the default).
const databases = useTeamDatabases('restarts', { durable: true });

describe('a team on PostgreSQL with two team servers', () => {
  let simulator: RemoteSimulator;
  let db: TeamDatabase;
  let second: TeamDatabase;
  let servers: TeamServer[] = [];
  let alice: Member;
  let bob: Member;

  beforeAll(async () => {
    simulator = await startSimulator();
    db = await databases.engines[1]![1]();
    await migrateTeamDatabase(db);
    second = await databases.another(db);
    servers = [await startTeamServer(simulator, db), await startTeamServer(simulator, second)];
    for (const server of servers)
      await until(
        'the team server mirrors the org',
        () => server.store.value('SELECT count(*) FROM datasets') === 40,
      );
    alice = await startMember('alice', servers[0]!.url, await teamToken(db, 'Alice'));
    bob = await startMember('bob', servers[1]!.url, await teamToken(db, 'Bob'));
    for (const member of [alice, bob])
      await until(`${member.name} is online`, () =>
        member.engine.team.statuses().some((status) => status.state === 'online'),
      );
  }, 90_000);
  afterAll(async () => {
    for (const member of [alice, bob]) await member?.stop();
    for (const server of servers) {
      await server.stop();
      await server.store.close();
    }
    await second?.close();
    await db?.close();
    await simulator?.close();
    removeTempDirs();
  });

  const failed = failedIn;

  it('shows a member of one server what a member of the other did', async () => {
    const datasetId = failed(alice)[0]!;
    await alice.engine.rpc.handlers['acks.set']({ orgId: TEAM_ORG, datasetId, causeId: null, note: 'on it' });
    await until(
      "Bob, through the other server, sees Alice's acknowledgement",
      () => openAcknowledgement(bob.store, TEAM_ORG, datasetId)?.by === 'Alice',
    );
  });

  it('loses and doubles nothing when PostgreSQL is killed and started again while a member pushes', async () => {
    const ids = failed(alice);
    const made: Promise<unknown>[] = [];
    for (const [index, datasetId] of ids.entries()) {
      if (index === 2) made.push(databases.postgres().restart());
      made.push(alice.engine.rpc.handlers['snoozes.set']({ orgId: TEAM_ORG, datasetId, kind: '4h' }));
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    await Promise.all(made);
    await until(
      'every change reached the server and Bob',
      () =>
        outboxCount(alice.store, TEAM_ORG) === 0 &&
        operationsOf(bob.store, TEAM_ORG).length === ids.length + 1,
      30_000,
    );
    const stored = await db.query<{ op_id: string }>('SELECT op_id FROM team_operations');
    expect(stored).toHaveLength(ids.length + 1);
    expect(new Set(stored.map((row) => row.op_id)).size).toBe(stored.length);
    expect(
      operationsOf(alice.store, TEAM_ORG)
        .map((op) => op.opId)
        .sort(),
    ).toEqual(
      operationsOf(bob.store, TEAM_ORG)
        .map((op) => op.opId)
        .sort(),
    );
  }, 60_000);
});
