/**
 * What a member may push (docs/decisions.md "On call as a team: operations"), checked by the team
 * server before anything is stored: operations of the token's org only, authored by the token's
 * member, and none at all from a viewer. A push with one operation refused is refused whole, with the
 * reason, so a member's outbox never half-lands.
 */
import type { TeamOperation } from '../../shared/team';

export interface Pusher {
  orgId: string;
  member: string;
  role: 'member' | 'viewer';
}

/** Why `pusher` may not push `operations`, or null when it may. */
export function pushProblem(pusher: Pusher, operations: readonly TeamOperation[]): string | null {
  if (pusher.role !== 'member')
    return `${pusher.member} is a viewer: a viewer reads, and cannot acknowledge or snooze`;
  for (const op of operations) {
    if (op.orgId !== pusher.orgId)
      return `operation ${op.opId} is for org ${JSON.stringify(op.orgId)}; this token is for ${JSON.stringify(pusher.orgId)} only`;
    if (op.author !== pusher.member)
      return `operation ${op.opId} is by ${JSON.stringify(op.author)}; this token is ${JSON.stringify(pusher.member)}'s`;
  }
  return null;
}
