/**
 * What the rules sent (docs/decisions.md "Rule notifications: one evaluator"): each notification once,
 * by its id, kept RULE_LOG_DAYS — what its routes deliver, and what a replay of the rules is compared
 * with. Written in the transaction that decides it, before it is told.
 */
import type { Store } from '../database';

import { RULE_LOG_DAYS } from '../../../shared/rulesView';

/** The longest replay; what the rules sent before is forgotten. */
export { RULE_LOG_DAYS };
const DAY_MS = 86_400_000;

/** Keeps these notifications (as JSON; a second with the same id is the same notification). */
export function recordRuleNotifications(
  store: Store,
  notifications: readonly { id: string; orgId: string; at: string }[],
  now: Date,
): void {
  if (notifications.length === 0) return;
  store.transaction(
    () => {
      for (const notification of notifications)
        store.run('INSERT OR IGNORE INTO rule_notifications (id, org_id, at_key, json) VALUES (?, ?, ?, ?)', [
          notification.id,
          notification.orgId,
          Date.parse(notification.at),
          JSON.stringify(notification),
        ]);
      store.run('DELETE FROM rule_notifications WHERE at_key < ?', [now.getTime() - RULE_LOG_DAYS * DAY_MS]);
    },
    { dataChange: false },
  );
}

/** The org's notifications sent in [from, to), oldest first, as recorded. */
export function ruleNotificationsSent(store: Store, orgId: string, from: Date, to: Date): unknown[] {
  return store
    .all(
      'SELECT json FROM rule_notifications WHERE org_id = ? AND at_key >= ? AND at_key < ? ORDER BY at_key, id',
      [orgId, from.getTime(), to.getTime()],
    )
    .map((row) => JSON.parse(String(row.json)) as unknown);
}
