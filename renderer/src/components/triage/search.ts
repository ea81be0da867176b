/**
 * Free-text search over the causes (`/` in the Triage view): a cause whose title, id, message or
 * suppliers contain the text is shown whole; otherwise it is shown with only its datasets whose name,
 * id, product, supplier or message contain it (and hidden when none do). Case does not matter.
 */
import type { CauseDataset, Incident } from '../../../../shared/causes';

export interface ShownCause {
  cause: Incident;
  /** The datasets shown when the cause is open: all of them, or those the search matched. */
  datasets: CauseDataset[];
  /** The search matched only some of its datasets (the cause is opened to show them). */
  byDatasets: boolean;
}

const has = (text: string | null | undefined, needle: string): boolean =>
  text !== null && text !== undefined && text.toLowerCase().includes(needle);

function causeMatches(cause: Incident, needle: string): boolean {
  return (
    has(cause.title, needle) ||
    has(cause.causeId, needle) ||
    has(cause.incidentId, needle) ||
    has(cause.representative?.message, needle) ||
    cause.suppliers.some((supplier) => has(supplier.name, needle) || has(supplier.id, needle))
  );
}

function datasetMatches(dataset: CauseDataset, needle: string): boolean {
  return [
    dataset.datasetName,
    dataset.datasetId,
    dataset.dataProductName,
    dataset.supplierName,
    dataset.supplierId,
    dataset.message,
  ].some((text) => has(text, needle));
}

export function searchCauses(causes: readonly Incident[], search: string): ShownCause[] {
  const needle = search.trim().toLowerCase();
  if (needle === '') return causes.map((cause) => ({ cause, datasets: cause.datasets, byDatasets: false }));
  return causes.flatMap((cause): ShownCause[] => {
    if (causeMatches(cause, needle)) return [{ cause, datasets: cause.datasets, byDatasets: false }];
    const datasets = cause.datasets.filter((dataset) => datasetMatches(dataset, needle));
    return datasets.length === 0 ? [] : [{ cause, datasets, byDatasets: true }];
  });
}

/** The acknowledgement a whole cause shows: one only when every failure of it is acknowledged. */
export function causeAcknowledgement(cause: Incident): CauseDataset['acknowledgement'] {
  if (cause.count === 0 || cause.unacknowledged > 0) return null;
  const acks = cause.datasets.flatMap((dataset) =>
    dataset.acknowledgement ? [dataset.acknowledgement] : [],
  );
  // The incident's own acknowledgement (`ack --cause`), else the latest one.
  const own = acks.filter((ack) => ack.causeId === cause.incidentId);
  const pool = own.length > 0 ? own : acks;
  return pool.reduce<CauseDataset['acknowledgement']>(
    (latest, ack) => (!latest || ack.at > latest.at ? ack : latest),
    null,
  );
}
