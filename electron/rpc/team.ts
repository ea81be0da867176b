/**
 * Settings → Team in the window (docs/decisions.md "On call as a team: members"): how this desktop
 * stands with its team servers, joining one with a URL and a token, and leaving. The token is sealed
 * by the app's secret keeper where it has one.
 */
import { type RpcHandlers, RpcError } from '../../shared/rpc';
import type { TeamStatus } from '../../shared/teamStatus';
import type { Store } from '../store/database';
import type { SecretKeeper } from '../sync/secrets';
import { JoinError, askTeamServer, joinTeam, leaveTeam } from '../team/joining';

export interface TeamDeps {
  store: Store;
  secrets: SecretKeeper;
  now: () => Date;
  reloadSync(): Promise<void>;
  /** The engine's team exchanges; absent where none run (a tool's handlers over a bare store). */
  team?: { reload(): Promise<void>; statuses(): TeamStatus[]; idle?(): Promise<void> };
  /** How the team server is asked who a token is (tests). */
  teamFetch?: typeof fetch;
}

export function teamHandlers(deps: TeamDeps): Pick<RpcHandlers, 'team.status' | 'team.join' | 'team.leave'> {
  const { store, now } = deps;
  const members = () => {
    if (!deps.team) throw new RpcError('unavailable', 'this engine exchanges nothing with team servers');
    return deps.team;
  };
  const restart = async () => {
    await deps.reloadSync();
    await members().reload();
  };
  return {
    'team.status': async () => deps.team?.statuses() ?? [],
    'team.join': async ({ url, token }) => {
      members();
      const seal = deps.secrets.seal;
      let identity;
      try {
        identity = await askTeamServer(url.trim(), token.trim(), deps.teamFetch);
        const known = identity;
        await store.whenIdle(() =>
          joinTeam(store, known, token.trim(), now(), seal ? (secret) => seal(secret) : undefined),
        );
      } catch (error) {
        if (error instanceof JoinError) throw new RpcError('invalid-argument', error.message);
        throw error;
      }
      await restart();
      // The first exchange, so the answer says how it stands (online, or why not), not "offline".
      await deps.team?.idle?.();
      const status = members()
        .statuses()
        .find((each) => each.orgId === identity.orgId);
      if (!status)
        throw new RpcError('internal', `joined the team of ${identity.orgId}, but no exchange started`);
      return status;
    },
    'team.leave': async ({ orgId }) => {
      const left = await store.whenIdle(() => leaveTeam(store, orgId, now()));
      if (left === null) throw new RpcError('not-found', `org '${orgId}' is in no team on this desktop`);
      await restart();
      return { unpushed: left.unpushed, restoredFrom: left.restored?.baseUrl ?? null };
    },
  };
}
