/**
 * The cause of each failure the alerts announce or remind (DESIGN.md §11), as the Triage view groups
 * them: from the org's causes of the moment (query/causes.ts), so a notification opens the very cause
 * the window lists. A failure no longer among them (it recovered while held in quiet hours or batched
 * by a cool-down) is grouped by its stored tasks, with its dataset's supplier as last synced.
 */
import { UNKNOWN_CAUSE_ID, causeTitle, failedCauseId, firstFailure } from '../../shared/causes';
import type { TasksRecord } from '../../shared/schemas';
import { listCauses } from '../query/causes';
import { getDeliveryTasks } from '../query/tasks';
import { lastSupplier } from '../store/announcements';
import type { Store } from '../store/database';
import type { Cause } from '../../shared/causes';
import type { CausedFailure, FailedDataset, FailureReason } from './types';

function storedReason(store: Store, dataset: FailedDataset): FailureReason | null {
  const tasks = getDeliveryTasks(store, dataset.orgId, dataset.deliveryId, false);
  if (!tasks.found) return null;
  return firstFailure(JSON.parse(tasks.json) as TasksRecord);
}

/**
 * The failures (of one org) with their causes, in the order given. `causes`: the org's causes of the
 * moment, when the caller already listed them (one listing serves several lookups in a decision).
 */
export function withCauses(
  store: Store,
  orgId: string,
  failures: readonly FailedDataset[],
  causes?: readonly Cause[],
): CausedFailure[] {
  if (failures.length === 0) return [];
  const byDelivery = new Map<string, Omit<CausedFailure, keyof FailedDataset>>();
  for (const cause of causes ?? listCauses(store, orgId)) {
    if (cause.kind === 'missing') continue;
    for (const dataset of cause.datasets)
      if (dataset.deliveryId !== null)
        byDelivery.set(dataset.deliveryId, {
          causeId: cause.causeId,
          causeTitle: cause.title,
          reason:
            cause.kind === 'failed' && cause.stage !== null
              ? { stage: cause.stage, shortCode: cause.shortCode, message: dataset.message }
              : null,
          supplierId: dataset.supplierId,
          supplierName: dataset.supplierName,
        });
  }
  return failures.map((failure) => {
    const known = byDelivery.get(failure.deliveryId);
    if (known) return { ...failure, ...known };
    const reason = storedReason(store, failure);
    const supplier = lastSupplier(store, failure.orgId, failure.datasetId);
    return {
      ...failure,
      causeId: reason ? failedCauseId(reason.stage, reason.shortCode) : UNKNOWN_CAUSE_ID,
      causeTitle: causeTitle(
        reason ? { kind: 'failed', stage: reason.stage, shortCode: reason.shortCode } : { kind: 'unknown' },
      ),
      reason,
      supplierId: supplier.id,
      supplierName: supplier.name,
    };
  });
}
