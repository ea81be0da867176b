/**
 * How a member's desktop stands with its team server (electron/team/exchange.ts), as the window's
 * header and Settings → Team and `team status` say it. Apart from shared/team.ts (the operations), which
 * the RPC contract does not need.
 */
/** How a member's desktop stands with its team server, for the window and the CLI. */
export interface TeamStatus {
  orgId: string;
  url: string;
  member: string;
  role: 'member' | 'viewer';
  /**
   * online: the last exchange worked; offline: the server did not answer (changes wait); refused: the
   * server answered with a refusal that trying again will not change (a revoked token, a viewer's
   * push, a name it does not serve: `problem` says which); syncing: the org's first mirror from the
   * team server has not finished, so nothing is exchanged yet.
   */
  state: 'online' | 'offline' | 'refused' | 'syncing';
  /** This member's changes not yet taken by the server. */
  waiting: number;
  /** When the server last answered. */
  lastContactAt: string | null;
  /** What went wrong last, in words, or null. */
  problem: string | null;
  /**
   * Changes from the team applied since the engine started: when it moves, what this desktop shows of
   * the org changed (a window reloads its view).
   */
  applied: number;
}

/** "Team: offline — 3 changes waiting": the status in one line. */
export function teamStatusLine(status: TeamStatus): string {
  const waiting =
    status.waiting === 0 ? '' : ` — ${status.waiting} change${status.waiting === 1 ? '' : 's'} waiting`;
  switch (status.state) {
    case 'online':
      return `Team: online as ${status.member}${waiting}`;
    case 'offline':
      return `Team: offline${waiting}`;
    case 'refused':
      return `Team: refused by the team server${waiting}`;
    case 'syncing':
      return `Team: mirroring the org from the team server${waiting}`;
  }
}
