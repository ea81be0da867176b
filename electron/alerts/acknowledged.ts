/**
 * Which problems someone is on already: an acknowledgement that holds now (same delivery, same status).
 * A failure held, batched or gathered for a digest that is acknowledged before its release is never
 * told: someone is on it.
 */
import { openAcknowledgements } from '../store/tables/acknowledgements';
import type { FailedDataset } from '../store/tables/announcements';
import type { Store } from '../store/database';
import type { RuleFact } from './ruleFacts';

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

/** The status an acknowledgement of this fact's problem names (null: an event no one acknowledges). */
export const acknowledgedStatus = (fact: RuleFact): string | null =>
  fact.event === 'failed' ? 'FAILED' : fact.event === 'missing' ? 'MISSING' : null;

/** Whether an acknowledgement holds now for a fact's problem (read once per org, then asked per fact). */
export function acknowledgedNow(store: Store): (fact: RuleFact) => boolean {
  const byOrg = new Map<string, ReturnType<typeof openAcknowledgements>>();
  return (fact) => {
    const status = acknowledgedStatus(fact);
    if (status === null || fact.datasetId === null) return false;
    if (!byOrg.has(fact.orgId)) byOrg.set(fact.orgId, openAcknowledgements(store, fact.orgId));
    const ack = byOrg.get(fact.orgId)!.get(fact.datasetId);
    return ack !== undefined && ack.deliveryId === fact.deliveryId && ack.status === status;
  };
}
