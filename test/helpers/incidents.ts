/**
 * What a sync's commit does after writing records or tasks straight into the store: groups the org's
 * troubles into incidents (electron/store/schema/incidents.ts). Call inside the transaction that wrote them.
 */
import type { Store } from '../../electron/store/database';
import { listIncidents } from '../../electron/query/incidents';
import { DEFAULT_INCIDENT_GAP_MS, refreshIncidents } from '../../electron/store/schema/incidents';

export function regroup(store: Store, orgId: string, now: Date): void {
  refreshIncidents(store, orgId, { now, gapMs: DEFAULT_INCIDENT_GAP_MS });
}

/** The id of the one live incident of a cause (the tests' orgs have one per cause); throws otherwise. */
export function incidentOf(store: Store, orgId: string, causeId: string): string {
  const found = listIncidents(store, orgId).filter((incident) => incident.causeId === causeId);
  if (found.length !== 1) throw new Error(`${found.length} live incidents of cause ${causeId} in ${orgId}`);
  return found[0]!.incidentId;
}
