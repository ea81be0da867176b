/**
 * A snapshot's timeline entries that tell of an acknowledgement (`acknowledged`, `acknowledgement-ended`)
 * against the file's acknowledgements (docs/decisions.md "Snapshots: the local knowledge"). The app
 * writes such an entry with its acknowledgement, which stays until it is withdrawn (`unack` deletes it
 * and writes an `unacknowledged` entry) or its dataset is forgotten with its timeline. So an entry of a
 * delivery the file's dataset has needs that acknowledgement in the file (dataset + deliveryId), unless
 * the timeline withdraws it at or after the entry. An entry of a delivery the file does not have is
 * history, as any entry is: retention dropped the delivery, and export leaves out its acknowledgement.
 */
import type { TimelineEntry } from '../../../shared/timeline';
import { shortQuote } from './importRules';
import { RecordProblem } from './normalize';

/** An acknowledgement's key: one per dataset and delivery (ids may hold any character). */
export const acknowledgementKey = (datasetId: string, deliveryId: string): string =>
  JSON.stringify([datasetId, deliveryId]);

const TELLS_OF_ONE: ReadonlySet<string> = new Set(['acknowledged', 'acknowledgement-ended']);

interface Claim {
  key: string;
  path: string;
  entry: TimelineEntry;
  datasetId: string;
}

export class AcknowledgementEntries {
  private readonly claims: Claim[] = [];

  /**
   * Notes the entries of a dataset's timeline (`path`) that need an acknowledgement of the file:
   * `hasDelivery` says which deliveries the file gives that dataset. Times are canonical (normalizeDateTime),
   * so as strings they compare as times.
   */
  add(
    datasetId: string,
    entries: readonly TimelineEntry[],
    path: string,
    hasDelivery: (deliveryId: string) => boolean,
  ): void {
    // Each delivery's last withdrawal: an entry at or before it tells of an acknowledgement deleted since.
    const withdrawn = new Map<string, string>();
    for (const { kind, deliveryId, at } of entries) {
      if (kind !== 'unacknowledged' || deliveryId === null) continue;
      const last = withdrawn.get(deliveryId);
      if (last === undefined || at > last) withdrawn.set(deliveryId, at);
    }
    entries.forEach((entry, i) => {
      const { kind, deliveryId, at } = entry;
      if (!TELLS_OF_ONE.has(kind) || deliveryId === null || !hasDelivery(deliveryId)) return;
      const last = withdrawn.get(deliveryId);
      if (last !== undefined && last >= at) return;
      this.claims.push({
        key: acknowledgementKey(datasetId, deliveryId),
        path: `${path}[${i}]`,
        entry,
        datasetId,
      });
    });
  }

  /** The first entry, in file order, whose acknowledgement is not among `acknowledged` (keys → paths). */
  check(acknowledged: ReadonlyMap<string, string>): void {
    for (const { key, path, entry, datasetId } of this.claims) {
      if (acknowledged.has(key)) continue;
      throw new RecordProblem(
        `${path}.deliveryId`,
        `an '${entry.kind}' entry of delivery ${shortQuote(entry.deliveryId!)}, but the file has no acknowledgement of dataset ${shortQuote(datasetId)} and that delivery (give it in $.acknowledgements, or an 'unacknowledged' entry at or after this one if it was withdrawn)`,
      );
    }
  }
}
