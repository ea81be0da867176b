/**
 * A member's operations in its own store (docs/decisions.md "On call as a team: members"): what this
 * desktop does for a linked org becomes an operation — its id, its author (the member's team name),
 * its clock reading — recorded in the log and applied in one transaction, and waits in the outbox
 * until the team server takes it (team/exchange.ts). What the server sends is recorded the same way.
 * A desktop killed between the two loses nothing: the outbox is in the store, and a push sent twice is
 * stored once by id.
 */
import { webcrypto } from 'node:crypto';
import type { TeamOperation } from '../../shared/team';
import type { Store } from '../store/database';
import type { TeamLink } from '../store/tables/teamLinks';
import { setTeamClock, setTeamCursor, teamLinkOf } from '../store/tables/teamLinks';
import { recordOperation } from '../store/tables/teamLog';
import { InvalidArgument } from '../query/errors';
import { HybridClock } from './clock';
import { operationId } from './operationId';

/** What a new operation says: its kind and payload (the head is the member's). */
export type Intent = {
  [K in TeamOperation['kind']]: Pick<Extract<TeamOperation, { kind: K }>, 'kind' | 'payload'>;
}[TeamOperation['kind']];

/**
 * Records `intents` as the member's operations when `orgId` is linked to a team (and returns true);
 * false, recording nothing, for an org this desktop keeps alone. Call inside a transaction.
 */
export function recordIfShared(
  store: Store,
  orgId: string,
  intents: () => readonly Intent[],
  clock: MemberClock,
): boolean {
  const link = teamLinkOf(store, orgId);
  if (link === null) return false;
  recordOwn(store, link, intents(), clock);
  return true;
}

/** A viewer's desktop refuses to acknowledge or snooze: the team server would refuse it anyway. */
export class ViewerCannotChange extends InvalidArgument {
  constructor(link: TeamLink) {
    super(
      'org',
      `${link.member} is a viewer on the team of org '${link.orgId}' (${link.url}): a viewer reads, and cannot acknowledge or snooze`,
    );
    this.name = 'ViewerCannotChange';
  }
}

export interface MemberClock {
  now: () => Date;
  /** n random bytes (the operation's id). */
  random?: (count: number) => Uint8Array;
}

const cryptoRandom = (count: number): Uint8Array => webcrypto.getRandomValues(new Uint8Array(count));

/**
 * Records the member's own operations for a linked org, applied at once and waiting in the outbox.
 * Call inside a transaction (the caller's, so the change and its operation commit together).
 */
export function recordOwn(
  store: Store,
  link: TeamLink,
  intents: readonly Intent[],
  clock: MemberClock,
): TeamOperation[] {
  if (link.role !== 'member') throw new ViewerCannotChange(link);
  const now = clock.now();
  const hybrid = new HybridClock(() => now.getTime(), link.clock);
  const made = intents.map(
    (intent) =>
      ({
        opId: operationId(now.getTime(), clock.random ?? cryptoRandom),
        orgId: link.orgId,
        author: link.member,
        at: hybrid.next(),
        ...intent,
      }) as TeamOperation,
  );
  for (const op of made) recordOperation(store, op, { seq: 0, pushed: false }, now);
  setTeamClock(store, link.orgId, hybrid.latest);
  return made;
}

/**
 * Records operations pulled from the team server, in one transaction with the cursor they end at.
 * Returns how many were new to this member.
 */
export function recordPulled(
  store: Store,
  orgId: string,
  operations: readonly (TeamOperation & { seq: number })[],
  cursor: number,
  now: Date,
  /** The team server they were pulled from: when the org has joined another since, they are not applied. */
  from?: string,
): number {
  return store.transaction(() => {
    const link = teamLinkOf(store, orgId);
    // Left the team (or joined another) meanwhile: what was pulled is no longer this desktop's to apply,
    // and its cursor, another server's, must not become the new link's.
    if (link === null || (from !== undefined && link.url !== from)) return 0;
    const hybrid = new HybridClock(() => now.getTime(), link.clock);
    let added = 0;
    for (const op of operations) {
      hybrid.observe(op.at);
      if (recordOperation(store, op, { seq: op.seq, pushed: true }, now)) added += 1;
    }
    setTeamCursor(store, orgId, cursor);
    setTeamClock(store, orgId, hybrid.latest);
    return added;
  });
}
