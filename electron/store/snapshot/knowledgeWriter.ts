/**
 * Writes a snapshot's local knowledge (knowledgeRecords.ts) into the org, in the import's transaction,
 * after the checks that need the file's datasets: a timeline or acknowledgement of a dataset of the
 * file, a delivery of that dataset, one open acknowledgement per dataset, no record given twice.
 */
import type { TimelineEntry } from '../../../shared/timeline';
import type { Store } from '../database';
import { problemDeliveryKept } from '../schema/failedDelivery';
import { addTimelineEntry } from '../tables/timeline';
import { shortQuote } from './importRules';
import type { SnapshotAcknowledgement, SnapshotIncident, SnapshotSyncOutage } from './knowledgeRecords';
import { RecordProblem } from './recordFields';
import { AcknowledgementEntries, acknowledgementKey } from './snapshotAckEntries';

/** Where a delivery is first named among the file's datasets, as the import's checks find it. */
export interface DeliveryOwner {
  /** The datasetId it belongs to, and the JSON path that says so. */
  datasetId: string;
  readonly path: string;
}

/** The file's datasets as the import has written them (fileLedger.ts, deliveryChecks.ts). */
export interface FileDatasets {
  /** The index of the file's dataset record of this id, if any. */
  index(datasetId: string): number | undefined;
  /** The dataset of the file a delivery belongs to: most often `likely` (asked first, cheaply). */
  owner(deliveryId: string, likely: string): DeliveryOwner | undefined;
  /** The deliveries a dataset of the file has (its events' and its own deliveryId). */
  deliveries(datasetId: string): ReadonlySet<string>;
  /** The file's timeline of a dataset of the file is written; `earliest` is its first entry's time. */
  timeline(datasetId: string, earliest: string | null): void;
}

/**
 * The checks across records (a dataset of the file, a delivery of that dataset), made once the
 * file's datasets are all read, and the writes. Inside the import's transaction; throws RecordProblem.
 */
export class KnowledgeWriter {
  /** Each acknowledgement written (acknowledgementKey) → its path. */
  private readonly acks = new Map<string, string>();
  /** The timelines' entries that need one of those. */
  private readonly ackEntries = new AcknowledgementEntries();
  /** Dataset → the path of its open acknowledgement. */
  private readonly open = new Map<string, string>();
  /** `[sourceId, lostAt]` of each sync outage written → its path. */
  private readonly outages = new Map<string, string>();
  /** Each incident written → its path; each failure (incidentFailureKey) → its path. */
  private readonly incidents = new Map<string, string>();
  private readonly incidentFailures = new Map<string, string>();
  /** The org's incidents were replaced by the file's (it gave `incidents`). */
  private incidentsReplaced = false;
  counts = { timelineEntries: 0, acknowledgements: 0, syncOutages: 0, incidents: 0 };

  constructor(
    private readonly store: Store,
    private readonly orgId: string,
    private readonly file: FileDatasets,
    /** Deliveries kept per dataset: the import trims its datasets' events to it at its end. */
    private readonly retention: number,
  ) {}

  private inFile(datasetId: string, path: string, what: string): void {
    if (this.file.index(datasetId) === undefined)
      throw new RecordProblem(
        path,
        `${what} of dataset ${shortQuote(datasetId)}, which is not in the file's datasets (a snapshot holds the knowledge of its own datasets only)`,
      );
  }

  /**
   * A delivery named is not another dataset's; with `required`, it is one the file gives this dataset.
   * `own`: the dataset's deliveries, when already read.
   */
  private ownDelivery(
    datasetId: string,
    deliveryId: string | null,
    path: string,
    { required = false, own }: { required?: boolean; own?: ReadonlySet<string> } = {},
  ): void {
    if (deliveryId === null || own?.has(deliveryId)) return;
    const owner = this.file.owner(deliveryId, datasetId);
    if (owner === undefined && required)
      throw new RecordProblem(
        path,
        `dataset ${shortQuote(datasetId)} has no delivery ${shortQuote(deliveryId)} in the file (an acknowledgement is of one of its dataset's deliveries: an event's deliveryId or the record's)`,
      );
    if (owner !== undefined && owner.datasetId !== datasetId)
      throw new RecordProblem(
        path,
        `delivery ${shortQuote(deliveryId)} belongs to dataset ${shortQuote(owner.datasetId)} (${owner.path}), not ${shortQuote(datasetId)}`,
      );
  }

  timeline(datasetId: string, entries: TimelineEntry[], path: string): void {
    this.inFile(datasetId, path, 'the timeline');
    // Read once for all its entries (most are of its own deliveries).
    const own = this.file.deliveries(datasetId);
    entries.forEach((entry, i) =>
      this.ownDelivery(datasetId, entry.deliveryId, `${path}[${i}].deliveryId`, { own }),
    );
    this.ackEntries.add(datasetId, entries, path, (deliveryId) => own.has(deliveryId));
    let earliest: string | null = null;
    for (const entry of entries) {
      addTimelineEntry(this.store, { orgId: this.orgId, datasetId, ...entry });
      // Canonical times (normalizeDateTime): as strings they sort as times.
      if (earliest === null || entry.at < earliest) earliest = entry.at;
    }
    // Pruned to retention at the end (recordWriter.ts).
    this.file.timeline(datasetId, earliest);
    this.counts.timelineEntries += entries.length;
  }

  acknowledgement(ack: SnapshotAcknowledgement, path: string): void {
    this.inFile(ack.datasetId, `${path}.datasetId`, 'an acknowledgement');
    // Ended ones too: export writes those of the deliveries it writes (query/exportSnapshot.ts).
    this.ownDelivery(ack.datasetId, ack.deliveryId, `${path}.deliveryId`, { required: true });
    const key = acknowledgementKey(ack.datasetId, ack.deliveryId);
    const same = this.acks.get(key);
    if (same !== undefined)
      throw new RecordProblem(
        `${path}.deliveryId`,
        `delivery ${shortQuote(ack.deliveryId)} of dataset ${shortQuote(ack.datasetId)} is acknowledged also at ${same} (one acknowledgement per failure)`,
      );
    this.acks.set(key, path);
    if (ack.endedAt === null) this.holds(ack, path);
    this.store.run(
      `INSERT INTO acknowledgements (org_id, dataset_id, delivery_id, status, cause_id, note, by_name, at, ended_at, end_reason)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        this.orgId,
        ack.datasetId,
        ack.deliveryId,
        ack.status,
        ack.causeId,
        ack.note,
        ack.by,
        ack.at,
        ack.endedAt,
        ack.endReason,
      ],
    );
    this.counts.acknowledgements++;
  }

  /** The checks that need every record read: each acknowledgement's entry has its acknowledgement. */
  finish(): void {
    this.ackEntries.check(this.acks);
  }

  /** An open acknowledgement is of the dataset's failure now, as the file's record says (one per dataset). */
  private holds(ack: SnapshotAcknowledgement, path: string): void {
    const other = this.open.get(ack.datasetId);
    if (other !== undefined)
      throw new RecordProblem(
        `${path}.endedAt`,
        `dataset ${shortQuote(ack.datasetId)} has an open acknowledgement already at ${other} (at most one holds; the others have endedAt)`,
      );
    this.open.set(ack.datasetId, path);
    // As it will be once the import trims the dataset's events to retention (at its end).
    const now = this.store.get(
      `SELECT d.status, ${problemDeliveryKept('?3')} AS delivery FROM datasets d WHERE d.org_id = ?1 AND d.dataset_id = ?2`,
      [this.orgId, ack.datasetId, this.retention],
    );
    if (now !== undefined && now.status === ack.status && now.delivery === ack.deliveryId) return;
    const delivery = now?.delivery == null ? '' : ` with delivery ${shortQuote(String(now.delivery))}`;
    const status = now?.status == null ? 'has no status' : `is ${String(now.status)}${delivery}`;
    throw new RecordProblem(
      `${path}.endedAt`,
      `an open acknowledgement of ${ack.status} delivery ${shortQuote(ack.deliveryId)}, but the file's dataset ${shortQuote(ack.datasetId)} ${status} (give endedAt and endReason for one that ended)`,
    );
  }

  /**
   * The org's outage of the same source and start is replaced (an import again is the same import); the
   * file gives each once, as export writes them, so what it counts is what is stored.
   */
  syncOutage(outage: SnapshotSyncOutage, path: string): void {
    const key = JSON.stringify([outage.sourceId, outage.lostAt]);
    const same = this.outages.get(key);
    if (same !== undefined)
      throw new RecordProblem(
        `${path}.lostAt`,
        `source ${shortQuote(outage.sourceId)} lost contact at ${outage.lostAt} also at ${same} (one outage per source and start)`,
      );
    this.outages.set(key, path);
    this.store.run('DELETE FROM sync_outages WHERE org_id = ? AND source_id = ? AND lost_at = ?', [
      this.orgId,
      outage.sourceId,
      outage.lostAt,
    ]);
    this.store.run(
      // Imported: shown on the timelines, never taken for this mirror's own contact with a source.
      `INSERT INTO sync_outages (org_id, source_id, source_name, last_success_at, lost_at, regained_at, imported)
       VALUES (?, ?, ?, ?, ?, ?, 1)`,
      [
        this.orgId,
        outage.sourceId,
        outage.sourceName,
        outage.lastSuccessAt,
        outage.lostAt,
        outage.regainedAt,
      ],
    );
    this.counts.syncOutages++;
  }

  /**
   * The file gives `incidents` (maybe none): the org's incidents and their failures go, the file's
   * replace them (`incident`); the import's refreshIncidents then ends and groups from there. Once.
   */
  replaceIncidents(): void {
    if (this.incidentsReplaced) return;
    this.incidentsReplaced = true;
    this.store.run('DELETE FROM incident_failures WHERE org_id = ?', [this.orgId]);
    this.store.run('DELETE FROM incidents WHERE org_id = ?', [this.orgId]);
  }

  /**
   * An incident of the file, with its failures: each of a dataset the org has after the import (the
   * file's, or one it keeps), of a delivery that is not another dataset's of the file, and held by one
   * incident of the file only (a failure is the store's key).
   */
  incident(incident: SnapshotIncident, path: string): void {
    const same = this.incidents.get(incident.incidentId);
    if (same !== undefined)
      throw new RecordProblem(
        `${path}.incidentId`,
        `incident ${shortQuote(incident.incidentId)} is also at ${same} (one incident per id)`,
      );
    this.incidents.set(incident.incidentId, path);
    incident.failures.forEach((failure, i) => {
      const at = `${path}.failures[${i}]`;
      if (
        this.file.index(failure.datasetId) === undefined &&
        this.store.value('SELECT 1 FROM datasets WHERE org_id = ? AND dataset_id = ?', [
          this.orgId,
          failure.datasetId,
        ]) === undefined
      )
        throw new RecordProblem(
          `${at}.datasetId`,
          `a failure of dataset ${shortQuote(failure.datasetId)}, which is neither in the file's datasets nor in org '${this.orgId}'`,
        );
      this.ownDelivery(failure.datasetId, failure.deliveryId || null, `${at}.deliveryId`);
      const key = JSON.stringify([failure.datasetId, failure.deliveryId, failure.status]);
      const other = this.incidentFailures.get(key);
      if (other !== undefined)
        throw new RecordProblem(
          at,
          `the ${failure.status} failure of dataset ${shortQuote(failure.datasetId)}, delivery ${shortQuote(failure.deliveryId)} is also at ${other} (a failure belongs to one incident)`,
        );
      this.incidentFailures.set(key, at);
    });
    this.replaceIncidents();
    this.store.run(
      `INSERT INTO incidents (org_id, incident_id, cause_id, title, first_failure_at, last_failure_at, opened_at, ended_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        this.orgId,
        incident.incidentId,
        incident.causeId,
        incident.title,
        incident.firstFailureAt,
        incident.lastFailureAt,
        incident.openedAt,
        incident.endedAt,
      ],
    );
    for (const failure of incident.failures)
      this.store.run(
        `INSERT INTO incident_failures (org_id, dataset_id, delivery_id, status, incident_id, cause_id, failure_at,
           learned_at, ended_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          this.orgId,
          failure.datasetId,
          failure.deliveryId,
          failure.status,
          incident.incidentId,
          incident.causeId,
          failure.failureAt,
          failure.learnedAt,
          failure.endedAt,
        ],
      );
    this.counts.incidents++;
  }
}
