/**
 * FAILED deliveries whose tasks are not stored yet (docs/architecture.md#poll): the sync fetches them as soon as it
 * has seen them, so failure reasons are there offline.
 */
import type { Store } from '../store/database';
import { NEWEST_FAILED_DELIVERY } from '../store/schema/failedDelivery';

/** The newest FAILED delivery of each FAILED dataset of the org whose tasks are not stored. */
export function failedDeliveriesWithoutTasks(store: Store, orgId: string): string[] {
  return store.column<string>(
    `SELECT failed FROM (
       SELECT ${NEWEST_FAILED_DELIVERY} AS failed FROM datasets d WHERE d.org_id = ?1 AND d.status = 'FAILED')
     WHERE failed IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM delivery_tasks t WHERE t.org_id = ?1 AND t.delivery_id = failed)`,
    [orgId],
  );
}

/** Whether the tasks of this delivery are stored. */
export function hasStoredTasks(store: Store, orgId: string, deliveryId: string): boolean {
  return (
    store.value<number>('SELECT 1 FROM delivery_tasks WHERE org_id = ? AND delivery_id = ?', [
      orgId,
      deliveryId,
    ]) !== undefined
  );
}
