/**
 * The team server's own mirror applies the team's operations (docs/decisions.md "On call as a team:
 * members"), as a member's does: its alerts (`team serve --on-failed`), reminders, handoff and
 * `/local/v1` then know what the team acknowledged and who did. At start it reads every operation of
 * the database; from then on each NOTIFY of an org (a push through this server or another on the
 * database) reads what is new. Operations in the database were checked when they were pushed.
 */
import type { Store } from '../store/database';
import type { TeamDatabase } from '../store/teamDb/driver';
import { OPERATIONS_CHANNEL, operationOrgs, operationsAfter } from '../store/teamDb/operations';
import { recordOperation } from '../store/tables/teamLog';

const PAGE = 1000;

export async function applyTeamLog(options: {
  store: Store;
  db: TeamDatabase;
  now: () => Date;
  /** Operations changed acknowledgements or snoozes (the alerts redraw). */
  onApplied: () => void;
  onError: (error: unknown) => void;
}): Promise<() => Promise<void>> {
  const { store, db, now } = options;
  const cursors = new Map<string, number>();
  let queue: Promise<void> = Promise.resolve();
  const catchUp = async (orgId: string): Promise<void> => {
    for (;;) {
      const page = await operationsAfter(db, orgId, cursors.get(orgId) ?? 0, PAGE);
      if (page.length === 0) return;
      const added = await store.whenIdle(() =>
        store.transaction(
          () => page.filter((op) => recordOperation(store, op, { seq: op.seq, pushed: true }, now())).length,
        ),
      );
      cursors.set(orgId, page.at(-1)!.seq);
      if (added > 0) options.onApplied();
      if (page.length < PAGE) return;
    }
  };
  // One catch-up at a time, in order: two NOTIFYs of one org never read the same page twice at once.
  const schedule = (orgs: () => Promise<string[]> | string[]): void => {
    queue = queue
      .then(async () => {
        for (const orgId of await orgs()) await catchUp(orgId);
      })
      .catch(options.onError);
  };
  schedule(() => operationOrgs(db));
  const stopListening = await db.listen(
    OPERATIONS_CHANNEL,
    (orgId) => schedule(() => [orgId]),
    // Listening again after a lost connection: whatever was pushed meanwhile is read now.
    () => schedule(() => operationOrgs(db)),
  );
  return async () => {
    await stopListening();
    await queue;
  };
}
