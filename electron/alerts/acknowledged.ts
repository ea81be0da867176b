/**
 * Which failures someone is on already: an acknowledgement that holds now (same delivery, still
 * FAILED). A failure held, batched or gathered for a digest that is acknowledged before its release is
 * never told: someone is on it.
 */
import { openAcknowledgements } from '../store/tables/acknowledgements';
import type { FailedDataset } from '../store/tables/announcements';
import type { Store } from '../store/database';

/** The failures whose delivery has an acknowledgement that holds now (same delivery, still FAILED). */
export function acknowledgedOf<T extends FailedDataset>(
  store: Store,
  orgId: string,
  failures: readonly T[],
): { acknowledged: T[]; rest: T[] } {
  const open = openAcknowledgements(store, orgId);
  const holds = (failure: T): boolean => {
    const ack = open.get(failure.datasetId);
    return ack !== undefined && ack.deliveryId === failure.deliveryId && ack.status === 'FAILED';
  };
  return { acknowledged: failures.filter(holds), rest: failures.filter((failure) => !holds(failure)) };
}
