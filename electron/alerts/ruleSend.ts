/**
 * What the rules send, kept and queued (docs/decisions.md "Rule notifications: one evaluator", "Routes:
 * at most once"): each notification recorded in the rules' log and put on its way to each of its routes
 * but the tray, in one transaction with the decision, before anything is told. The deliverer
 * (routes/deliverer.ts) sends them once the commit is saved; the alerter wakes it.
 */
import { enqueueRouteDeliveries } from '../routes/payload';
import { recordRuleNotifications } from '../store/tables/ruleLog';
import type { AlertsContext } from './context';
import type { RuleNotification } from './ruleRun';

/** Records and queues these notifications; how many route deliveries were queued. */
export function sendRuleNotifications(
  ctx: AlertsContext,
  notifications: readonly RuleNotification[],
): number {
  if (notifications.length === 0) return 0;
  let queued = 0;
  ctx.store.transaction(
    () => {
      recordRuleNotifications(ctx.store, notifications, ctx.now);
      for (const notification of notifications)
        queued += enqueueRouteDeliveries(
          ctx.store,
          {
            orgId: notification.orgId,
            notificationId: notification.id,
            routeIds: notification.routes,
            payload: { ...notification },
          },
          ctx.now,
        );
    },
    { dataChange: false },
  );
  return queued;
}
