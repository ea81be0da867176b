/**
 * Acknowledging (DESIGN.md §11), as the window, the CLI and the control channel all do it: check the
 * request against what is stored now, then record it in one transaction (the acknowledgement and its
 * timeline entry). A failure is the dataset's current FAILED (or MISSING) delivery; a cause is each of
 * its failures not acknowledged yet.
 */
import {
  type AcknowledgementView,
  ackNameProblem,
  causeIdOf,
  noteProblem,
  parseCauseId,
} from '../../shared/causes';
import { acknowledge, openAcknowledgement, unacknowledge } from '../store/acknowledgements';
import type { Store } from '../store/database';
import { InvalidArgument } from '../query/errors';
import { causeOfDataset, listCauses } from '../query/causes';

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

/** The cause id in its canonical spelling; bad syntax is refused naming the field. */
function canonicalCause(causeId: string): string {
  try {
    return causeIdOf(parseCauseId(causeId));
  } catch (error) {
    throw new InvalidArgument('cause', (error as Error).message);
  }
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
  const found = causeOfDataset(store, orgId, datasetId);
  if (!found || found.dataset.deliveryId === null)
    throw new NothingToAcknowledge(`dataset '${datasetId}' is not FAILED or MISSING in org '${orgId}'`);
  const { dataset } = found;
  return store.transaction(() =>
    acknowledge(store, {
      orgId,
      datasetId,
      deliveryId: dataset.deliveryId!,
      status: dataset.status,
      causeId: null,
      note: text,
      by,
      at: who.now.toISOString(),
    }),
  );
}

/** Acknowledges every failure of the cause not acknowledged yet; returns the new acknowledgements. */
export function acknowledgeCause(
  store: Store,
  orgId: string,
  causeId: string,
  note: string | null | undefined,
  who: Who,
): AcknowledgementView[] {
  const text = checkNote(note);
  const by = checkName(who.by);
  const canonical = canonicalCause(causeId);
  const cause = listCauses(store, orgId).find((candidate) => candidate.causeId === canonical);
  if (!cause) throw new NothingToAcknowledge(`no current failure has cause '${canonical}' in org '${orgId}'`);
  const at = who.now.toISOString();
  return store.transaction(() =>
    cause.datasets
      .filter((dataset) => dataset.acknowledgement === null && dataset.deliveryId !== null)
      .map((dataset) =>
        acknowledge(store, {
          orgId,
          datasetId: dataset.datasetId,
          deliveryId: dataset.deliveryId!,
          status: dataset.status,
          causeId: canonical,
          note: text,
          by,
          at,
        }),
      ),
  );
}

/** Withdraws the dataset's acknowledgement; false when it had none. */
export function unacknowledgeDataset(store: Store, orgId: string, datasetId: string, who: Who): boolean {
  const by = checkName(who.by);
  if (!openAcknowledgement(store, orgId, datasetId)) return false;
  return store.transaction(() => unacknowledge(store, orgId, datasetId, by, who.now.toISOString()));
}

/** Withdraws the acknowledgements of every current failure of the cause; how many were withdrawn. */
export function unacknowledgeCause(store: Store, orgId: string, causeId: string, who: Who): number {
  const by = checkName(who.by);
  const canonical = canonicalCause(causeId);
  const cause = listCauses(store, orgId).find((candidate) => candidate.causeId === canonical);
  if (!cause) return 0;
  const at = who.now.toISOString();
  return store.transaction(
    () =>
      cause.datasets.filter(
        (dataset) =>
          dataset.acknowledgement !== null && unacknowledge(store, orgId, dataset.datasetId, by, at),
      ).length,
  );
}
