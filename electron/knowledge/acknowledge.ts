/**
 * Acknowledging (docs/architecture.md#acknowledgements), as the window, the CLI and the control channel all do it: check the
 * request against what is stored now, then record it in one transaction (the acknowledgement and its
 * timeline entry). A failure is the dataset's current FAILED (or MISSING) delivery; an incident is each
 * of its failures troubled and not acknowledged at that moment (docs/decisions.md "Incidents").
 */
import {
  type AcknowledgementView,
  type Incident,
  ackNameProblem,
  causeIdOf,
  noteProblem,
  parseCauseId,
} from '../../shared/causes';
import { acknowledge, openAcknowledgement, unacknowledge } from '../store/tables/acknowledgements';
import type { Store } from '../store/database';
import { InvalidArgument } from '../query/errors';
import { getIncident, incidentOfDataset, listIncidents } from '../query/incidents';
import { INCIDENT_ID } from '../store/schema/incidents';
import { recordIfShared } from '../team/localOperations';

/** A dataset or cause that is not (or no longer) in trouble: the API's 404, the CLI's one-line error. */
export class NothingToAcknowledge extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NothingToAcknowledge';
  }
}

export interface Who {
  /** Who acknowledges (the setting; the OS user name by default). */
  by: string;
  now: Date;
}

/** The note as stored: trimmed, empty is none; one it cannot keep (noteProblem) is refused naming the field. */
export function checkNote(note: string | null | undefined): string | null {
  const trimmed = note?.trim() ?? '';
  const problem = noteProblem(trimmed);
  if (problem !== null) throw new InvalidArgument('note', `note ${problem}`);
  return trimmed === '' ? null : trimmed;
}

/** The name as stored: trimmed; one it cannot keep (ackNameProblem) is refused naming the field. */
export function checkName(by: string): string {
  const trimmed = by.trim();
  const problem = ackNameProblem(trimmed);
  if (problem !== null) throw new InvalidArgument('by', `the name of who acknowledges ${problem}`);
  return trimmed;
}

export const isIncidentId = (id: string): boolean => INCIDENT_ID.test(id);

/**
 * What `--cause` or an incident request names, as looked up: an incident id as given, or a cause key in
 * its canonical spelling (`INGEST:E_X` → `ingest:E_X`). A cause key that does not parse throws its error.
 */
export function incidentOrCause(id: string): string {
  return isIncidentId(id) ? id : causeIdOf(parseCauseId(id));
}

/**
 * The live incident an id names: an incident id (`inc-…`), or a cause key (`ingest:E_AUTH_FAILED`) that
 * exactly one live incident has — with several, the message lists them to choose from. Bad syntax is
 * refused naming the field; an incident that is over or unknown is NothingToAcknowledge.
 */
export function liveIncident(store: Store, orgId: string, id: string): Incident {
  if (isIncidentId(id)) {
    const incident = getIncident(store, orgId, id);
    if (incident === null) throw new NothingToAcknowledge(`no incident '${id}' in org '${orgId}'`);
    if (incident.endedAt !== null)
      throw new NothingToAcknowledge(`incident '${id}' is over: none of its datasets is troubled now`);
    return incident;
  }
  let canonical: string;
  try {
    canonical = incidentOrCause(id);
  } catch (error) {
    throw new InvalidArgument(
      'cause',
      `${(error as Error).message}; or give an incident id (inc- and ten hex digits)`,
    );
  }
  const matching = listIncidents(store, orgId).filter((incident) => incident.causeId === canonical);
  const [only] = matching;
  if (only === undefined)
    throw new NothingToAcknowledge(`no current failure has cause '${canonical}' in org '${orgId}'`);
  if (matching.length > 1)
    throw new InvalidArgument(
      'cause',
      `cause '${canonical}' has ${matching.length} live incidents; give one's id: ${matching
        .map(
          (incident) =>
            `${incident.incidentId} (${incident.count} dataset${incident.count === 1 ? '' : 's'}, last failed ${incident.lastFailureAt})`,
        )
        .join(', ')}`,
    );
  return only;
}

/** Acknowledges the dataset's current failure. */
export function acknowledgeDataset(
  store: Store,
  orgId: string,
  datasetId: string,
  note: string | null | undefined,
  who: Who,
): AcknowledgementView {
  const text = checkNote(note);
  const by = checkName(who.by);
  const found = incidentOfDataset(store, orgId, datasetId);
  if (!found || found.dataset.deliveryId === null)
    throw new NothingToAcknowledge(`dataset '${datasetId}' is not FAILED or MISSING in org '${orgId}'`);
  const { dataset } = found;
  const deliveryId = dataset.deliveryId!;
  const status = troubled(dataset.status);
  return store.transaction(() => {
    // With a team, the acknowledgement is the team's operation, by the member's team name.
    const shared = recordIfShared(
      store,
      orgId,
      () => [
        {
          kind: 'acknowledge',
          payload: { datasetId, deliveryId, status, note: text, causeId: null },
        },
      ],
      { now: () => who.now },
    );
    if (shared) return openAcknowledgement(store, orgId, datasetId)!;
    return acknowledge(store, {
      orgId,
      datasetId,
      deliveryId,
      status: dataset.status,
      causeId: null,
      note: text,
      by,
      at: who.now.toISOString(),
    });
  });
}

/**
 * Acknowledges every failure of the incident (by id, or a cause key with one live incident) troubled and
 * not acknowledged yet; returns the new acknowledgements.
 */
export function acknowledgeCause(
  store: Store,
  orgId: string,
  incidentId: string,
  note: string | null | undefined,
  who: Who,
): AcknowledgementView[] {
  const text = checkNote(note);
  const by = checkName(who.by);
  const incident = liveIncident(store, orgId, incidentId);
  const at = who.now.toISOString();
  const open = incident.datasets.filter(
    (dataset) => dataset.acknowledgement === null && dataset.deliveryId !== null,
  );
  return store.transaction(() => {
    const shared = recordIfShared(
      store,
      orgId,
      () =>
        open.map((dataset) => ({
          kind: 'acknowledge' as const,
          payload: {
            datasetId: dataset.datasetId,
            deliveryId: dataset.deliveryId!,
            status: troubled(dataset.status),
            note: text,
            causeId: incident.incidentId,
          },
        })),
      { now: () => who.now },
    );
    if (shared) return open.map((dataset) => openAcknowledgement(store, orgId, dataset.datasetId)!);
    return open.map((dataset) =>
      acknowledge(store, {
        orgId,
        datasetId: dataset.datasetId,
        deliveryId: dataset.deliveryId!,
        status: dataset.status,
        causeId: incident.incidentId,
        note: text,
        by,
        at,
      }),
    );
  });
}

/** Withdraws the dataset's acknowledgement; false when it had none. */
export function unacknowledgeDataset(store: Store, orgId: string, datasetId: string, who: Who): boolean {
  const by = checkName(who.by);
  const open = openAcknowledgement(store, orgId, datasetId);
  if (!open) return false;
  return store.transaction(
    () =>
      recordIfShared(store, orgId, () => [withdrawal(open)], { now: () => who.now }) ||
      unacknowledge(store, orgId, datasetId, by, who.now.toISOString()),
  );
}

/** A troubled dataset's status, as an operation names it (the incidents hold troubled datasets only). */
function troubled(status: string): 'FAILED' | 'MISSING' {
  if (status === 'FAILED' || status === 'MISSING') return status;
  throw new NothingToAcknowledge(`a ${status} dataset has no failure to acknowledge`);
}

/** The team operation that withdraws `ack`. */
const withdrawal = (ack: AcknowledgementView) =>
  ({
    kind: 'unacknowledge',
    payload: {
      datasetId: ack.datasetId,
      deliveryId: ack.deliveryId,
      status: troubled(ack.status),
    },
  }) as const;

/** Withdraws the acknowledgements of every troubled failure of the incident; how many were withdrawn. */
export function unacknowledgeCause(store: Store, orgId: string, incidentId: string, who: Who): number {
  const by = checkName(who.by);
  let incident: Incident;
  try {
    incident = liveIncident(store, orgId, incidentId);
  } catch (error) {
    if (error instanceof NothingToAcknowledge) return 0;
    throw error;
  }
  const at = who.now.toISOString();
  const acknowledged = incident.datasets.filter((dataset) => dataset.acknowledgement !== null);
  return store.transaction(() => {
    const shared = recordIfShared(
      store,
      orgId,
      () => acknowledged.map((dataset) => withdrawal(openAcknowledgement(store, orgId, dataset.datasetId)!)),
      { now: () => who.now },
    );
    if (shared) return acknowledged.length;
    return acknowledged.filter((dataset) => unacknowledge(store, orgId, dataset.datasetId, by, at)).length;
  });
}
