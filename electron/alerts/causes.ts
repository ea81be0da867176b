/**
 * The incident of each failure the alerts announce or remind (docs/decisions.md "Incidents"), as the
 * Triage view groups them: from the org's live incidents (query/incidents.ts), so a notification opens
 * the very incident the window lists. A failure no longer among them (it recovered while held in quiet
 * hours or batched by a cool-down) keeps the incident it belonged to; one never grouped is grouped by
 * its stored tasks, with its dataset's supplier as last synced.
 */
import { UNKNOWN_CAUSE_ID, causeTitle, failedCauseId, firstFailure } from '../../shared/causes';
import type { TasksRecord } from '../../shared/schemas';
import { type FailurePlace, type IncidentHeader, failurePlaces, getIncidentHeader } from '../query/incidents';
import { getDeliveryTasks } from '../query/tasks';
import { lastSupplier } from '../store/tables/announcements';
import type { Store } from '../store/database';
import { INCIDENT_ID, incidentOfFailure } from '../store/schema/incidents';
import type { CausedFailure, FailedDataset, FailureReason } from './types';

function storedReason(store: Store, dataset: FailedDataset): FailureReason | null {
  const tasks = getDeliveryTasks(store, dataset.orgId, dataset.deliveryId, false);
  if (!tasks.found) return null;
  const failure = firstFailure(JSON.parse(tasks.json) as TasksRecord);
  return failure && { stage: failure.stage, shortCode: failure.shortCode, message: failure.message };
}

type Grouping = Omit<CausedFailure, keyof FailedDataset>;

function groupingOf(incident: IncidentHeader, place: Omit<FailurePlace, 'incident'> | undefined): Grouping {
  return {
    incidentId: incident.incidentId,
    causeId: incident.causeId,
    causeTitle: incident.title,
    reason:
      incident.kind === 'failed' && incident.stage !== null
        ? { stage: incident.stage, shortCode: incident.shortCode, message: place?.message ?? null }
        : null,
    supplierId: place?.supplierId ?? null,
    supplierName: place?.supplierName ?? null,
  };
}

/** The failures (of one org) with their incidents, in the order given. */
export function withCauses(store: Store, orgId: string, failures: readonly FailedDataset[]): CausedFailure[] {
  if (failures.length === 0) return [];
  const places = failurePlaces(store, orgId, failures);
  // Failures that recovered while held often share one former incident: read its header once.
  const headers = new Map<string, IncidentHeader | null>();
  const headerOf = (incidentId: string): IncidentHeader | null => {
    if (!headers.has(incidentId)) headers.set(incidentId, getIncidentHeader(store, orgId, incidentId));
    return headers.get(incidentId)!;
  };
  return failures.map((failure) => {
    const place = places.get(failure.deliveryId);
    if (place !== undefined) return { ...failure, ...groupingOf(place.incident, place) };
    const supplier = lastSupplier(store, failure.orgId, failure.datasetId);
    const reason = storedReason(store, failure);
    const former = incidentOfFailure(store, orgId, failure.datasetId, failure.deliveryId, 'FAILED');
    const incident = former === null ? null : headerOf(former);
    if (incident !== null)
      return {
        ...failure,
        ...groupingOf(incident, undefined),
        reason,
        supplierId: supplier.id,
        supplierName: supplier.name,
      };
    const causeId = reason ? failedCauseId(reason.stage, reason.shortCode) : UNKNOWN_CAUSE_ID;
    return {
      ...failure,
      incidentId: causeId,
      causeId,
      causeTitle: causeTitle(
        reason ? { kind: 'failed', stage: reason.stage, shortCode: reason.shortCode } : { kind: 'unknown' },
      ),
      reason,
      supplierId: supplier.id,
      supplierName: supplier.name,
    };
  });
}

/**
 * Where a notification of an incident's failures leads: that incident in Triage; a failure no incident
 * holds (grouped by its cause key alone) opens its cause's newest incident instead.
 */
export function triageTarget(
  orgId: string,
  grouped: { incidentId: string; causeId: string },
): { view: 'triage'; orgId: string; incidentId?: string; causeId?: string } {
  return INCIDENT_ID.test(grouped.incidentId)
    ? { view: 'triage', orgId, incidentId: grouped.incidentId }
    : { view: 'triage', orgId, causeId: grouped.causeId };
}
