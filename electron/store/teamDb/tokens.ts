/**
 * Team tokens (docs/decisions.md "On call as a team: operations"): what a member's desktop presents to
 * the team server. `dht_` and 43 base64url characters, shown once when made and stored only as a
 * SHA-256 hash; each for one org and one member, with a role — a **member** reads and pushes
 * operations, a **viewer** only reads — and revocable. The member's name is the author of every
 * operation pushed with it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ackNameProblem } from '../../../shared/causes';
import { TEAM_TOKEN_PATTERN } from '../../../shared/team';
import type { TeamDatabase } from './driver';

export const TEAM_ROLES = ['member', 'viewer'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/** A token as lists show it: never the secret, never its hash. */
export interface TeamTokenInfo {
  id: string;
  orgId: string;
  member: string;
  role: TeamRole;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** Who a token speaks for. */
export interface TeamCaller {
  tokenId: string;
  orgId: string;
  member: string;
  role: TeamRole;
}

/** A request for a token the team server cannot make (the name, the role). */
export class TeamTokenError extends Error {}

const hashOf = (token: string): Buffer => createHash('sha256').update(token).digest();

/** Makes a token; the secret is in the answer only. */
export async function createTeamToken(
  db: TeamDatabase,
  request: { orgId: string; member: string; role: string },
  now: Date,
): Promise<TeamTokenInfo & { token: string }> {
  const problem = ackNameProblem(request.member);
  if (problem !== null) throw new TeamTokenError(`the member's name ${problem}`);
  if (!(TEAM_ROLES as readonly string[]).includes(request.role))
    throw new TeamTokenError(
      `a role is member (reads and acknowledges) or viewer (reads only), not ${JSON.stringify(request.role)}`,
    );
  if (request.orgId.length === 0 || request.orgId.length > 256)
    throw new TeamTokenError('an org id is 1 to 256 characters');
  const token = `dht_${randomBytes(32).toString('base64url')}`;
  const info: TeamTokenInfo = {
    id: `tok_${randomBytes(6).toString('hex')}`,
    orgId: request.orgId,
    member: request.member,
    role: request.role as TeamRole,
    createdAt: now.toISOString(),
    lastUsedAt: null,
    revokedAt: null,
  };
  await db.query(
    'INSERT INTO team_tokens (id, org_id, member, role, hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [info.id, info.orgId, info.member, info.role, hashOf(token), info.createdAt],
  );
  return { ...info, token };
}

interface Row {
  id: string;
  org_id: string;
  member: string;
  role: TeamRole;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const COLUMNS = 'id, org_id, member, role, created_at, last_used_at, revoked_at';
const toInfo = (row: Row): TeamTokenInfo => ({
  id: row.id,
  orgId: row.org_id,
  member: row.member,
  role: row.role,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
});

/** Every token, revoked ones included, oldest first. */
export async function listTeamTokens(db: TeamDatabase): Promise<TeamTokenInfo[]> {
  return (await db.query<Row>(`SELECT ${COLUMNS} FROM team_tokens ORDER BY created_at, id`)).map(toInfo);
}

/** Revokes a token; false when there is none of that id or it was revoked already. */
export async function revokeTeamToken(db: TeamDatabase, id: string, now: Date): Promise<boolean> {
  const rows = await db.query(
    'UPDATE team_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id',
    [id, now.toISOString()],
  );
  return rows.length > 0;
}

/** How often a token's last use is written: not on every request of a busy member. */
const LAST_USED_EVERY_MS = 60_000;

/** Who `token` speaks for, or null for none (unknown, revoked, not a token at all). */
export async function authenticateTeamToken(
  db: TeamDatabase,
  token: string,
  now: Date,
): Promise<TeamCaller | null> {
  if (!TEAM_TOKEN_PATTERN.test(token)) return null;
  const [row] = await db.query<Row>(
    `SELECT ${COLUMNS} FROM team_tokens WHERE hash = $1 AND revoked_at IS NULL`,
    [hashOf(token)],
  );
  if (row === undefined) return null;
  const at = now.toISOString();
  if (row.last_used_at === null || Date.parse(row.last_used_at) <= now.getTime() - LAST_USED_EVERY_MS)
    await db.query('UPDATE team_tokens SET last_used_at = $2 WHERE id = $1', [row.id, at]);
  return { tokenId: row.id, orgId: row.org_id, member: row.member, role: row.role };
}
