/**
 * Team tokens (electron/store/teamDb/tokens.ts) on both engines: shown once, kept only as a hash, each
 * for one org and member with a role, revocable; a token that is unknown, revoked or malformed speaks
 * for no one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TeamDatabase } from '../../../../electron/store/teamDb/driver';
import { migrateTeamDatabase } from '../../../../electron/store/teamDb/migrations';
import { TEAM_TOKEN_PATTERN } from '../../../../shared/team';
import {
  TeamTokenError,
  authenticateTeamToken,
  createTeamToken,
  listTeamTokens,
  revokeTeamToken,
} from '../../../../electron/store/teamDb/tokens';
import { useTeamDatabases } from '../../../helpers/teamDatabases';

const NOW = new Date('2026-11-29T12:00:00.000Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);

const { engines: ENGINES } = useTeamDatabases('tokens');

describe.each(ENGINES)('team tokens on %s', (_, open) => {
  let db: TeamDatabase;
  beforeAll(async () => {
    db = await open();
    await migrateTeamDatabase(db);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  it('are shown once, kept as a hash, and speak for their member, org and role', async () => {
    const alice = await createTeamToken(db, { orgId: 'acme', member: 'Alice', role: 'member' }, NOW);
    const viewer = await createTeamToken(db, { orgId: 'acme', member: 'Vic', role: 'viewer' }, NOW);
    expect(alice.token).toMatch(TEAM_TOKEN_PATTERN);
    expect(await authenticateTeamToken(db, alice.token, NOW)).toEqual({
      tokenId: alice.id,
      orgId: 'acme',
      member: 'Alice',
      role: 'member',
    });
    expect(await authenticateTeamToken(db, viewer.token, NOW)).toMatchObject({
      member: 'Vic',
      role: 'viewer',
    });
    // Nowhere at rest: not in any column of the table.
    const stored = JSON.stringify(await db.query('SELECT * FROM team_tokens'));
    expect(stored).not.toContain(alice.token);
    expect(stored).not.toContain(alice.token.slice(4));
    const listed = await listTeamTokens(db);
    expect(listed.find((t) => t.id === alice.id)).toEqual({
      id: alice.id,
      orgId: 'acme',
      member: 'Alice',
      role: 'member',
      createdAt: NOW.toISOString(),
      lastUsedAt: NOW.toISOString(),
      revokedAt: null,
    });
  });

  it('write their last use at most once a minute', async () => {
    const bob = await createTeamToken(db, { orgId: 'acme', member: 'Bob', role: 'member' }, NOW);
    await authenticateTeamToken(db, bob.token, NOW);
    await authenticateTeamToken(db, bob.token, later(30_000));
    const lastUsed = async () => (await listTeamTokens(db)).find((t) => t.id === bob.id)!.lastUsedAt;
    expect(await lastUsed()).toBe(NOW.toISOString());
    await authenticateTeamToken(db, bob.token, later(61_000));
    expect(await lastUsed()).toBe(later(61_000).toISOString());
  });

  it('stop working once revoked, and revoke once', async () => {
    const carol = await createTeamToken(db, { orgId: 'acme', member: 'Carol', role: 'member' }, NOW);
    expect(await revokeTeamToken(db, carol.id, later(1_000))).toBe(true);
    expect(await revokeTeamToken(db, carol.id, later(2_000))).toBe(false);
    expect(await revokeTeamToken(db, 'tok_000000000000', later(2_000))).toBe(false);
    expect(await authenticateTeamToken(db, carol.token, later(3_000))).toBeNull();
    expect((await listTeamTokens(db)).find((t) => t.id === carol.id)!.revokedAt).toBe(
      later(1_000).toISOString(),
    );
  });

  it('speak for no one when unknown or malformed', async () => {
    for (const token of [`dht_${'A'.repeat(43)}`, 'dhk_x', '', "dht_' OR 1=1 --"])
      expect(await authenticateTeamToken(db, token, NOW)).toBeNull();
  });

  it.each([
    [{ orgId: 'acme', member: '', role: 'member' }, "the member's name must be 1 to"],
    [{ orgId: 'acme', member: ' Alice', role: 'member' }, 'spaces at its start or end'],
    [{ orgId: 'acme', member: 'Al\u0007ice', role: 'member' }, 'control character'],
    [
      { orgId: 'acme', member: 'Alice', role: 'admin' },
      'a role is member (reads and acknowledges) or viewer',
    ],
    [{ orgId: '', member: 'Alice', role: 'member' }, 'an org id is 1 to 256 characters'],
  ])('refuse to make %j', async (request, message) => {
    const before = (await listTeamTokens(db)).length;
    await expect(createTeamToken(db, request, NOW)).rejects.toThrow(TeamTokenError);
    await expect(createTeamToken(db, request, NOW)).rejects.toThrow(message);
    expect((await listTeamTokens(db)).length).toBe(before);
  });
});
