/**
 * Joining a team and leaving it (docs/decisions.md "On call as a team: members"), in the member's
 * store. Joining asks the team server who the token speaks for, then, in one transaction, points the
 * org's source at the team server (its v2 API is a remote like any other: the team has one poller of
 * the remote service) and records the link. Leaving restores the org's own source as it was and keeps
 * every acknowledgement and snooze as the team left them: nothing is lost, the org is simply this
 * desktop's alone again.
 */
import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { TEAM_PATHS, TEAM_TOKEN_PATTERN } from '../../shared/team';
import type { Store } from '../store/database';
import { getSource, listSources, normalizeBaseUrl, removeSource, saveSource } from '../store/tables/sources';
import { type TeamLink, removeTeamLink, saveTeamLink, teamLinkOf } from '../store/tables/teamLinks';
import { forgetOperations, outboxCount } from '../store/tables/teamLog';

/** Why joining failed, in words for the user. */
export class JoinError extends Error {}

const Me = Type.Object({
  orgId: Type.String({ minLength: 1, maxLength: 256 }),
  member: Type.String({ minLength: 1, maxLength: 256 }),
  role: Type.Union([Type.Literal('member'), Type.Literal('viewer')]),
});
const checkMe = Compile(Me);

export interface TeamIdentity {
  url: string;
  orgId: string;
  member: string;
  role: 'member' | 'viewer';
}

/** Asks the team server at `url` who `token` speaks for. */
export async function askTeamServer(
  url: string,
  token: string,
  fetcher: typeof fetch = fetch,
): Promise<TeamIdentity> {
  if (!TEAM_TOKEN_PATTERN.test(token))
    throw new JoinError('a team token is dht_ and 43 letters, digits, - or _ (from `team tokens create`)');
  let base: string;
  try {
    base = normalizeBaseUrl(url);
  } catch (error) {
    throw new JoinError((error as Error).message);
  }
  let response: Response;
  try {
    response = await fetcher(new URL(TEAM_PATHS.me, base), {
      headers: { Authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    throw new JoinError(
      `cannot reach the team server at ${base}: ${(error as Error).cause ?? (error as Error).message}`,
    );
  }
  const text = await response.text();
  if (response.status === 401)
    throw new JoinError(`the team server at ${base} refused the token: unknown or revoked`);
  if (!response.ok)
    throw new JoinError(
      `the team server at ${base} answered ${response.status}: is it a Dataset Health team server?`,
    );
  let me: unknown;
  try {
    me = JSON.parse(text);
  } catch {
    me = null;
  }
  if (!checkMe.Check(me))
    throw new JoinError(`${base} is not a Dataset Health team server (its answer is not one)`);
  return { url: base, orgId: me.orgId, member: me.member, role: me.role };
}

/**
 * Links the org to the team server (or renews the link: a new token, another member). `seal` seals the
 * token for the store when the shell can. Call it where the store may be written.
 */
export function joinTeam(
  store: Store,
  identity: TeamIdentity,
  token: string,
  now: Date,
  seal?: (token: string) => string,
): TeamLink {
  return store.transaction(() => {
    let previous = teamLinkOf(store, identity.orgId);
    if (previous !== null && (previous.url !== identity.url || previous.member !== identity.member)) {
      // Another team, or another member: the log was the old one's, and its outbox is the old author's.
      const waiting = outboxCount(store, identity.orgId);
      if (waiting > 0)
        throw new JoinError(
          `${waiting} change${waiting === 1 ? '' : 's'} made as ${previous.member} still wait for ${previous.url}: let them reach it first (\`dataset-health team status\`), or leave that team (they stay on this desktop) and join again`,
        );
      forgetOperations(store, identity.orgId);
      previous = { ...previous, url: identity.url, cursor: 0 };
    }
    const own = listSources(store).find((source) => source.orgId === identity.orgId);
    // Joined before: the org's own source is the one set aside then, not the team's.
    const setAside =
      previous !== null
        ? previous.setAside
        : own === undefined
          ? null
          : {
              id: own.id,
              name: own.name,
              baseUrl: own.baseUrl,
              enabled: own.enabled,
              apiKeySealed: own.apiKeySealed,
            };
    const sourceId = previous?.sourceId ?? own?.id ?? identity.orgId;
    saveSource(
      store,
      {
        id: sourceId,
        orgId: identity.orgId,
        name: `team ${identity.url}`,
        baseUrl: identity.url,
        enabled: true,
      },
      now,
    );
    const link: TeamLink = {
      orgId: identity.orgId,
      url: identity.url,
      member: identity.member,
      role: identity.role,
      token: seal ? seal(token) : token,
      tokenSealed: seal !== undefined,
      sourceId,
      setAside,
      cursor: previous?.url === identity.url ? previous.cursor : 0,
      clock: previous?.clock ?? null,
      joinedAt: previous?.joinedAt ?? now.toISOString(),
    };
    saveTeamLink(store, link);
    return link;
  });
}

export interface Left {
  link: TeamLink;
  /** This member's changes the team server never took: they stay on this desktop only. */
  unpushed: number;
  /** The org's own source, mirrored from again; null when it had none before joining. */
  restored: { id: string; baseUrl: string } | null;
}

/** Unlinks the org from its team; null when it has no team. */
export function leaveTeam(store: Store, orgId: string, now: Date): Left | null {
  const link = teamLinkOf(store, orgId);
  // No team: nothing written (not even an empty commit, which would renew every ETag).
  if (link === null) return null;
  return store.transaction(() => {
    const unpushed = outboxCount(store, orgId);
    const aside = link.setAside;
    if (aside !== null) {
      if (aside.id !== link.sourceId) removeSource(store, link.sourceId);
      saveSource(store, { ...aside, orgId }, now);
    } else if (getSource(store, link.sourceId)) removeSource(store, link.sourceId);
    forgetOperations(store, orgId);
    removeTeamLink(store, orgId);
    return { link, unpushed, restored: aside === null ? null : { id: aside.id, baseUrl: aside.baseUrl } };
  });
}
