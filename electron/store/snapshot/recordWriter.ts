/**
 * The write side of an import: checked records go into the org inside the caller's transaction, with
 * the checks that need the whole file made at the end (`finish`), then the org's incidents and
 * retention brought up to date as a sync's commit does.
 */
import type { FailureCause } from '../../../shared/causes';
import type { DatasetRecord } from '../../../shared/schemas';
import type { Store } from '../database';
import { DEFAULT_INCIDENT_GAP_MS, refreshIncidents, settleGivenIncidents } from '../schema/incidents';
import {
  DEFAULT_DELIVERIES_PER_DATASET,
  keepNewestEvents,
  pruneTasks,
  writeDataset,
  writePackedTasks,
} from '../tables/datasetWriter';
import { DeferredIndexes } from '../tables/deferredIndexes';
import { ensureOrg } from '../tables/orgs';
import { forgetDataset, pruneTimeline } from '../tables/timeline';
import { DeliveryChecks } from './deliveryChecks';
import { RepeatedDelivery, repeatedDelivery } from './fileChecks';
import { FileLedger } from './fileLedger';
import { KnowledgeWriter } from './knowledgeWriter';
import { RecordProblem } from './normalize';
import { SnapshotError } from './snapshotText';

export interface ImportOptions {
  now: Date;
  deliveriesPerDataset?: number;
  /** Failures of one cause this close in time are one incident (incidents.ts); default 6 h. */
  incidentGapMs?: number;
}

/** Every event of a record is written: retention trims them once the file's checks are made. */
const KEEP_ALL = Number.MAX_SAFE_INTEGER;

const datasetTwice = (record: DatasetRecord, index: number, earlier: number): RecordProblem =>
  new RecordProblem(
    `$.datasets[${index}].datasetId`,
    `'${record.datasetId}' also appears at $.datasets[${earlier}]`,
  );

/**
 * Writes checked records into the org, inside the caller's transaction: each dataset replaces the stored
 * one of the same id (record and events); datasets not in the file are left as they are. The checks
 * across records are made over what it has written (fileLedger.ts, deliveryChecks.ts): those across
 * the datasets once they are all written (`datasetsDone`), the rest at the end (`finish`). Throws
 * `RecordProblem` or `SnapshotError` (the caller rolls back).
 */
export class SnapshotWriter {
  private readonly deliveriesPerDataset: number;
  private readonly now: Date;
  private readonly incidentGapMs: number;
  /** The file's datasets and keys as written: the splitter's `SnapshotKeys`. */
  readonly file: FileLedger;
  private readonly deliveries: DeliveryChecks;
  /** Indexes dropped while the tables fill, and built again by `buildIndex`. */
  private deferred!: DeferredIndexes;
  /** No dataset is stored: every dataset of the file is new. */
  private empty = false;
  /** No event is stored: every dataset's events go in as they are (see `deferIndexes`). */
  private fresh = false;
  private written = 0;
  /** The checks across the file's datasets: not made yet, or the problem they found (null: none). */
  private across: string | null | undefined;
  /** A delivery of the file that a dataset the file leaves as it is holds: refused by `finish`. */
  private elsewhere: string | null = null;

  constructor(
    private readonly store: Store,
    private readonly orgId: string,
    options: ImportOptions,
  ) {
    this.deliveriesPerDataset = options.deliveriesPerDataset ?? DEFAULT_DELIVERIES_PER_DATASET;
    this.now = options.now;
    this.incidentGapMs = options.incidentGapMs ?? DEFAULT_INCIDENT_GAP_MS;
    ensureOrg(store, orgId, options.now);
    this.file = new FileLedger(store, orgId);
    this.deliveries = new DeliveryChecks(store, orgId, this.file);
    this.deferIndexes();
  }

  /**
   * Into empty tables (a new data directory), rows go in faster without their indexes (the datasets
   * table has a dozen and a half, one per sort order; events one on deliveryId): they are built once
   * from the finished tables, as their definitions say: at 10k datasets, a third less time writing (and
   * 4% fewer pages). The transaction holds it all: a rolled-back import leaves the indexes as they were.
   * Events go in without the merge by deliveryId only when no event is stored (`repeatedDelivery`
   * keeps a record's deliveryIds distinct).
   */
  private deferIndexes(): void {
    const empty = (table: string): boolean =>
      this.store.value(`SELECT 1 FROM ${table} LIMIT 1`) === undefined;
    this.empty = empty('datasets');
    this.fresh = this.empty && empty('events');
    this.deferred = DeferredIndexes.whileEmpty(
      this.store,
      !this.empty ? [] : this.fresh ? ['datasets', 'events'] : ['datasets'],
    );
  }

  /** Dataset record `index` of the file: checked against the records before it, then written. */
  dataset(record: DatasetRecord, index: number): void {
    // Its datasetId is looked at before its events.
    const earlier = this.file.index(record.datasetId);
    if (earlier !== undefined) throw datasetTwice(record, index, earlier);
    const repeated = repeatedDelivery(record, index);
    if (repeated !== null) throw repeated;
    const isNew =
      this.empty ||
      this.store.value('SELECT 1 FROM datasets WHERE org_id = ? AND dataset_id = ?', [
        this.orgId,
        record.datasetId,
      ]) === undefined;
    const pk = writeDataset(this.store, this.orgId, record, {
      events: 'replace',
      deliveriesPerDataset: KEEP_ALL,
      isNew,
      // `repeatedDelivery` keeps a record's deliveryIds distinct.
      distinctEvents: this.fresh,
    });
    this.file.noteDataset(record, index, pk);
    // Its timeline and acknowledgements are replaced with the file's too (none, if it gives none).
    if (!isNew) forgetDataset(this.store, this.orgId, record.datasetId);
    this.written++;
  }

  tasks(deliveryId: string, packed: Uint8Array, failure: FailureCause | null): void {
    writePackedTasks(this.store, this.orgId, deliveryId, packed, failure, true);
    this.file.tasksWritten(deliveryId);
  }

  /** Builds one of the indexes `deferIndexes` dropped; false when none is left. */
  buildIndex(): boolean {
    return this.deferred.buildNext();
  }

  /**
   * The checks across the file's datasets, once they are all written (every index built first: the
   * checks, the knowledge's and the pruning read through them). Throws the first problem in file order.
   */
  datasetsDone(): void {
    while (this.buildIndex());
    if (this.across === undefined) {
      const { inFile, elsewhere } = this.deliveries.across();
      this.across = inFile;
      this.elsewhere = elsewhere;
    }
    if (this.across !== null) throw new SnapshotError(this.across);
  }

  /** The checks across the file's datasets are made and found nothing. */
  get datasetsPass(): boolean {
    return this.across === null;
  }

  /**
   * For a file refused (`error`) before `datasetsDone`: the first problem across the datasets written
   * before it, which comes first in the file. Null when there is none (or `error` is not the file's).
   */
  earlierProblem(error: unknown): string | null {
    if (this.across !== undefined) return null;
    if (!(error instanceof RecordProblem || error instanceof SnapshotError)) return null;
    if (this.written > 0) {
      for (const name of ['events_by_delivery', 'datasets_delivery']) this.deferred.build(name);
      this.across = this.deliveries.across().inFile;
    } else this.across = null;
    if (this.across !== null) return this.across;
    return error instanceof RepeatedDelivery ? this.deliveries.beforeRepeat(error) : null;
  }

  /** The knowledge's writer, checking against the file's datasets as written. */
  knowledgeWriter(): KnowledgeWriter {
    const { file, deliveries } = this;
    return new KnowledgeWriter(
      this.store,
      this.orgId,
      {
        index: (datasetId) => file.index(datasetId),
        owner: (deliveryId, likely) => deliveries.owner(deliveryId, likely),
        deliveries: (datasetId) => deliveries.of(datasetId),
        timeline: (datasetId, earliest) => file.timeline(datasetId, earliest),
      },
      this.deliveriesPerDataset,
    );
  }

  finish(knowledge: KnowledgeWriter): void {
    this.datasetsDone();
    if (this.elsewhere !== null) throw new SnapshotError(this.elsewhere);
    // Tasks must belong to a delivery of the file or of the org; retention may then drop old ones.
    const unknown = this.deliveries.tasksWithoutDelivery(this.file.tasksAbove);
    if (unknown !== null) throw new SnapshotError(unknown);
    // Last, as the knowledge comes last in an export: its checks across the whole file.
    knowledge.finish();
    // Retention, as for a sync, now that no check needs every delivery of the file.
    this.file.overRetention(this.deliveriesPerDataset, (datasetId) => {
      const pk = this.store.value<number>('SELECT pk FROM datasets WHERE org_id = ? AND dataset_id = ?', [
        this.orgId,
        datasetId,
      ]);
      keepNewestEvents(this.store, Number(pk), this.deliveriesPerDataset);
    });
    pruneTasks(this.store, this.orgId);
    // The org's incidents brought up to date with its failures, as a sync's commit does: those the file
    // gave (replacing the org's) keep their ids and times, a failure no longer its dataset's problem
    // ends, one the file did not hold is grouped (the import's time is when this mirror learned of it;
    // its failure time comes from its delivery). A file without incidents: all of them grouped so.
    settleGivenIncidents(this.store, this.orgId, this.now);
    refreshIncidents(this.store, this.orgId, { now: this.now, gapMs: this.incidentGapMs });
    // A timeline goes back no further than the deliveries kept beside it (every event kept, none due
    // after the timeline's first entry: nothing to drop, nothing to ask).
    this.file.timelinesToPrune(this.deliveriesPerDataset, (datasetId) =>
      pruneTimeline(this.store, this.orgId, datasetId),
    );
    this.file.drop();
  }
}
