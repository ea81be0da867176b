/**
 * Which orgs this desktop shares with a team (docs/decisions.md "On call as a team: members"): per org,
 * the team server, the member's token and name, the source that mirrors the org from the team server
 * (and the org's own sources set aside meanwhile), the pull cursor and the member's clock.
 */
import type { Row, Store } from '../database';

export type TeamRole = 'member' | 'viewer';

/** A source as the org had it before it joined a team. */
export interface SetAsideSource {
  id: string;
  name: string;
  baseUrl: string;
  enabled: boolean;
  apiKeySealed: string | null;
}

export interface TeamLink {
  orgId: string;
  /** The team server's address, e.g. http://127.0.0.1:47900. */
  url: string;
  /** The member's name on the team: the author of what this desktop does for the org. */
  member: string;
  role: TeamRole;
  /** The token as stored: sealed by the shell when `tokenSealed`. */
  token: string;
  tokenSealed: boolean;
  /** The source that mirrors the org from the team server. */
  sourceId: string;
  /** The org's own source as it was before joining (restored on leaving), or null when it had none. */
  setAside: SetAsideSource | null;
  cursor: number;
  clock: string | null;
  joinedAt: string;
}

const linkOf = (row: Row): TeamLink => ({
  orgId: String(row.org_id),
  url: String(row.url),
  member: String(row.member),
  role: String(row.role) as TeamRole,
  token: String(row.token),
  tokenSealed: row.token_sealed === 1,
  sourceId: String(row.source_id),
  setAside: JSON.parse(String(row.set_aside)) as SetAsideSource | null,
  cursor: Number(row.cursor),
  clock: row.clock === null ? null : String(row.clock),
  joinedAt: String(row.joined_at),
});

const COLUMNS =
  'org_id, url, member, role, token, token_sealed, source_id, set_aside, cursor, clock, joined_at';

export function teamLinkOf(store: Store, orgId: string): TeamLink | null {
  const row = store.get(`SELECT ${COLUMNS} FROM team_links WHERE org_id = ?`, [orgId]);
  return row === undefined ? null : linkOf(row);
}

export function teamLinks(store: Store): TeamLink[] {
  return store.all(`SELECT ${COLUMNS} FROM team_links ORDER BY org_id`).map(linkOf);
}

/** Records (or replaces) the org's link. Call inside a transaction. */
export function saveTeamLink(store: Store, link: TeamLink): void {
  store.run(`INSERT OR REPLACE INTO team_links (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
    link.orgId,
    link.url,
    link.member,
    link.role,
    link.token,
    link.tokenSealed ? 1 : 0,
    link.sourceId,
    JSON.stringify(link.setAside),
    link.cursor,
    link.clock,
    link.joinedAt,
  ]);
}

export function removeTeamLink(store: Store, orgId: string): boolean {
  return store.run('DELETE FROM team_links WHERE org_id = ?', [orgId]) > 0;
}

/** Notes the last team server number pulled. */
export function setTeamCursor(store: Store, orgId: string, cursor: number): void {
  store.run('UPDATE team_links SET cursor = ? WHERE org_id = ? AND cursor < ?', [cursor, orgId, cursor]);
}

/** Notes the member's clock's latest reading (it never goes back). */
export function setTeamClock(store: Store, orgId: string, clock: string): void {
  store.run('UPDATE team_links SET clock = ? WHERE org_id = ? AND (clock IS NULL OR clock < ?)', [
    clock,
    orgId,
    clock,
  ]);
}
