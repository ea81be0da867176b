/**
 * On call as a team, end to end on loopback (docs/decisions.md "On call as a team"): a team server
 * mirrors a remote simulator; three desktops join it and mirror the org from it. An acknowledgement
 * made in one window is seen in the others with who made it; a viewer's window refuses to change
 * anything; with the team server down a member's changes wait, the status says how many, and they land
 * when it is back, with nothing doubled; leaving keeps every acknowledgement. Both team databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamStatusLine } from '../../../shared/teamStatus';
import type { RemoteSimulator } from '../../../electron/demo/remote/server';
import { openAcknowledgement } from '../../../electron/store/tables/acknowledgements';
import { teamLinkOf } from '../../../electron/store/tables/teamLinks';
import { operationsOf, outboxCount } from '../../../electron/store/tables/teamLog';
import { listSnoozes } from '../../../electron/store/tables/snoozes';
import { leaveTeam } from '../../../electron/team/joining';
import type { TeamDatabase } from '../../../electron/store/teamDb/driver';
import { migrateTeamDatabase } from '../../../electron/store/teamDb/migrations';
import { removeTempDirs } from '../../helpers/cli';
import { useTeamDatabases } from '../../helpers/teamDatabases';
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

const databases = useTeamDatabases('members');

describe.each(databases.engines)('a team on %s', (_engine, open) => {
  let simulator: RemoteSimulator;
  let db: TeamDatabase;
  let server: TeamServer;
  let alice: Member;
  let bob: Member;
  let vic: Member;

  beforeAll(async () => {
    simulator = await startSimulator();
    db = await open();
    await migrateTeamDatabase(db);
    server = await startTeamServer(simulator, db);
    await until(
      'the team server mirrors the org',
      () => server.store.value('SELECT count(*) FROM datasets') === 40,
    );
    [alice, bob, vic] = await Promise.all([
      teamToken(db, 'Alice').then((token) => startMember('alice', server.url, token)),
      teamToken(db, 'Bob').then((token) => startMember('bob', server.url, token)),
      teamToken(db, 'Vic', 'viewer').then((token) => startMember('vic', server.url, token)),
    ]);
    for (const member of [alice, bob, vic])
      await until(`${member.name} mirrors the org and is online`, () =>
        member.engine.team.statuses().some((status) => status.state === 'online'),
      );
  }, 60_000);
  afterAll(async () => {
    for (const member of [alice, bob, vic]) await member?.stop();
    await server?.stop();
    await server?.store.close();
    await db?.close();
    await simulator?.close();
    removeTempDirs();
  });

  const failed = failedIn;

  it('mirrors the org from the team server, which alone polls the remote', () => {
    expect(failed(alice).length).toBeGreaterThan(2);
    expect(failed(bob)).toEqual(failed(alice));
    const remote = new URL(simulator.url);
    for (const member of [alice, bob, vic])
      expect(member.store.value('SELECT base_url FROM sources WHERE org_id = ?', [TEAM_ORG])).toBe(
        server.url,
      );
    expect(remote.port).not.toBe(String(server.port));
  });

  it('shows an acknowledgement made in one window in the others, with who made it', async () => {
    const datasetId = failed(alice)[0]!;
    const { acknowledged } = await alice.engine.rpc.handlers['acks.set']({
      orgId: TEAM_ORG,
      datasetId,
      causeId: null,
      note: 'vendor ticket 4711',
    });
    expect(acknowledged[0]).toMatchObject({ by: 'Alice', note: 'vendor ticket 4711' });
    for (const member of [bob, vic])
      await until(
        `${member.name} sees Alice's acknowledgement`,
        () => openAcknowledgement(member.store, TEAM_ORG, datasetId)?.by === 'Alice',
      );
    expect(openAcknowledgement(bob.store, TEAM_ORG, datasetId)).toMatchObject({
      note: 'vendor ticket 4711',
      at: acknowledged[0]!.at,
    });
    await until('the outbox is empty', () => outboxCount(alice.store, TEAM_ORG) === 0);
    // The team server's own mirror knows too: its alerts, reminders and /local/v1 follow the team.
    await until(
      "the team server's mirror has Alice's acknowledgement",
      () => openAcknowledgement(server.store, TEAM_ORG, datasetId)?.by === 'Alice',
    );
  });

  it("refuses to change anything in a viewer's window", async () => {
    const datasetId = failed(vic)[1]!;
    await expect(
      vic.engine.rpc.handlers['acks.set']({ orgId: TEAM_ORG, datasetId, causeId: null, note: null }),
    ).rejects.toThrow(/Vic is a viewer/);
    expect(operationsOf(vic.store, TEAM_ORG).every((op) => op.author !== 'Vic')).toBe(true);
  });

  it('keeps changes made while the team server is down, says so, and delivers them once it is back', async () => {
    const [, second, third] = failed(bob);
    await server.stop();
    await bob.engine.rpc.handlers['acks.set']({
      orgId: TEAM_ORG,
      datasetId: second!,
      causeId: null,
      note: 'on it',
    });
    await bob.engine.rpc.handlers['snoozes.set']({ orgId: TEAM_ORG, datasetId: third!, kind: '4h' });
    await until(
      'Bob is offline with his two changes waiting',
      () => teamStatusLine(bob.engine.team.statuses()[0]!) === 'Team: offline — 2 changes waiting',
    );
    // Bob's window already shows his own changes.
    expect(openAcknowledgement(bob.store, TEAM_ORG, second!)?.by).toBe('Bob');
    expect(openAcknowledgement(alice.store, TEAM_ORG, second!)).toBeNull();
    await server.restart();
    await until('Alice sees what Bob did offline', () => {
      const snoozed = listSnoozes(alice.store, TEAM_ORG, new Date()).some(
        (snooze) => snooze.datasetId === third,
      );
      return snoozed && openAcknowledgement(alice.store, TEAM_ORG, second!)?.by === 'Bob';
    });
    await until('Bob is online with nothing waiting', () => {
      const [status] = bob.engine.team.statuses();
      return status?.state === 'online' && status.waiting === 0;
    });
    // Each operation once on the server, and once in every member's log.
    const stored = await db.query<{ op_id: string }>('SELECT op_id FROM team_operations');
    expect(new Set(stored.map((row) => row.op_id)).size).toBe(stored.length);
    await until('every member has every operation', () =>
      [alice, bob, vic].every((member) => operationsOf(member.store, TEAM_ORG).length === stored.length),
    );
  });

  it('leaves the team keeping every acknowledgement, and then acknowledges alone', async () => {
    const acknowledged = failed(vic).filter((id) => openAcknowledgement(vic.store, TEAM_ORG, id) !== null);
    expect(acknowledged.length).toBeGreaterThan(0);
    const left = vic.store.transaction(() => leaveTeam(vic.store, TEAM_ORG, new Date()));
    expect(left).toMatchObject({ unpushed: 0, restored: null });
    await vic.engine.team.reload();
    expect(teamLinkOf(vic.store, TEAM_ORG)).toBeNull();
    expect(vic.engine.team.statuses()).toEqual([]);
    for (const id of acknowledged) expect(openAcknowledgement(vic.store, TEAM_ORG, id)).not.toBeNull();
    expect(operationsOf(vic.store, TEAM_ORG)).toEqual([]);
  });
});
