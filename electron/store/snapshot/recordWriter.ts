/**
 * The write side of an import: checked records go into the org inside the caller's transaction, with
 * the checks that need the whole file made at the end (`finish`), then the org's incidents and
 * retention brought up to date as a sync's commit does.
 */
import type { FailureCause } from '../../../shared/causes';
import type { DatasetRecord } from '../../../shared/schemas';
import type { SqlValue } from 'sql.js';
import type { Store } from '../database';
import { DEFAULT_INCIDENT_GAP_MS, refreshIncidents, settleGivenIncidents } from '../schema/incidents';
import {
  DEFAULT_DELIVERIES_PER_DATASET,
  hasDelivery,
  pruneTasks,
  writeDataset,
  writePackedTasks,
} from '../tables/datasetWriter';
import { ensureOrg } from '../tables/orgs';
import { forgetDataset, pruneTimeline } from '../tables/timeline';
import { type Mention, type SnapshotChecker, before, mentionPath } from './fileChecks';
import { shortQuote } from './importRules';
import type { KnowledgeWriter } from './knowledgeWriter';
import { SnapshotError } from './snapshotText';

export interface ImportOptions {
  now: Date;
  deliveriesPerDataset?: number;
  /** Failures of one cause this close in time are one incident (incidents.ts); default 6 h. */
  incidentGapMs?: number;
}

/**
 * Writes checked records into the org, inside the caller's transaction: each dataset replaces the stored
 * one of the same id (record and events); datasets not in the file are left as they are. `finish`
 * makes the checks that need the whole file, and throws `SnapshotError` (the caller rolls back).
 */
export class SnapshotWriter {
  private readonly deliveriesPerDataset: number;
  private readonly now: Date;
  private readonly incidentGapMs: number;
  /** The org's datasets before the import: a dataset not among them is written without looking. */
  private readonly stored: Set<string>;
  private readonly tasksFiled: string[] = [];
  /** Indexes dropped while the tables fill, and built again by `finish`. */
  private readonly deferred: string[] = [];
  /** No event is stored: every dataset's events go in as they are (see `deferIndexes`). */
  private fresh = false;
  /**
   * Datasets whose events are all kept (no more than retention): their oldest deadline ('' when none
   * has one). A timeline of the file that starts no earlier needs no pruning (`finish`).
   */
  private readonly oldestKept = new Map<string, string>();

  constructor(
    private readonly store: Store,
    private readonly orgId: string,
    options: ImportOptions,
  ) {
    this.deliveriesPerDataset = options.deliveriesPerDataset ?? DEFAULT_DELIVERIES_PER_DATASET;
    this.now = options.now;
    this.incidentGapMs = options.incidentGapMs ?? DEFAULT_INCIDENT_GAP_MS;
    ensureOrg(store, orgId, options.now);
    this.stored = new Set(store.column<string>('SELECT dataset_id FROM datasets WHERE org_id = ?', [orgId]));
    this.deferIndexes();
  }

  /**
   * Into empty tables (a new data directory), rows go in faster without their indexes (the datasets
   * table has a dozen and a half, one per sort order; events one on deliveryId): they are built once
   * from the finished tables, as their definitions say: at 10k datasets, a third less time writing (and
   * 4% fewer pages). The transaction holds it all: a rolled-back import leaves the indexes as they were.
   */
  private deferIndexes(): void {
    const empty = (table: string): boolean =>
      this.store.value(`SELECT 1 FROM ${table} LIMIT 1`) === undefined;
    if (!empty('datasets')) return;
    this.fresh = empty('events');
    const indexes = this.store.all(
      // Not a UNIQUE constraint's own index (no SQL): the dataset upsert needs it.
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
         AND (tbl_name = 'datasets' OR (tbl_name = 'events' AND ?1))`,
      [this.fresh ? 1 : 0],
    );
    for (const { name, sql } of indexes) {
      this.store.db.run(`DROP INDEX "${String(name).replaceAll('"', '""')}"`);
      this.deferred.push(String(sql));
    }
  }

  dataset(record: DatasetRecord): void {
    const isNew = !this.stored.has(record.datasetId);
    writeDataset(this.store, this.orgId, record, {
      events: 'replace',
      deliveriesPerDataset: this.deliveriesPerDataset,
      isNew,
      // The file's checks (SnapshotChecker) keep a record's deliveryIds distinct.
      distinctEvents: this.fresh,
    });
    // Its timeline and acknowledgements are replaced with the file's too (none, if it gives none).
    if (!isNew) forgetDataset(this.store, this.orgId, record.datasetId);
    const events = record.deliveryEventList;
    if (events.length > this.deliveriesPerDataset) return;
    // Normalized times are canonical (`2026-11-21T04:41:00.000Z`): as strings they sort as times.
    let oldest = '';
    for (const { deliveryDeadline } of events)
      if (deliveryDeadline !== null && (oldest === '' || deliveryDeadline < oldest))
        oldest = deliveryDeadline;
    this.oldestKept.set(record.datasetId, oldest);
  }

  tasks(deliveryId: string, packed: Uint8Array, failure: FailureCause | null): void {
    writePackedTasks(this.store, this.orgId, deliveryId, packed, failure);
    this.tasksFiled.push(deliveryId);
  }

  /** Builds one of the indexes `deferIndexes` dropped; false when none is left. */
  buildIndex(): boolean {
    const sql = this.deferred.shift();
    if (sql === undefined) return false;
    this.store.db.run(sql);
    return true;
  }

  finish(file: SnapshotChecker, knowledge: KnowledgeWriter): void {
    // First: the checks below and the pruning read through them.
    while (this.buildIndex());
    const elsewhere = this.storedElsewhere(file);
    if (elsewhere !== null) throw new SnapshotError(elsewhere);
    // Tasks must belong to a delivery of the file or of the org; retention may then drop old ones.
    for (const deliveryId of this.tasksFiled) {
      if (!file.deliveries.has(deliveryId) && !hasDelivery(this.store, this.orgId, deliveryId)) {
        throw new SnapshotError(
          `$.tasks[${JSON.stringify(deliveryId)}]: no dataset of the file or of org '${this.orgId}' has a delivery with this id`,
        );
      }
    }
    // Last, as the knowledge comes last in an export: its checks across the whole file.
    knowledge.finish();
    pruneTasks(this.store, this.orgId);
    // The org's incidents brought up to date with its failures, as a sync's commit does: those the file
    // gave (replacing the org's) keep their ids and times, a failure no longer its dataset's problem
    // ends, one the file did not hold is grouped (the import's time is when this mirror learned of it;
    // its failure time comes from its delivery). A file without incidents: all of them grouped so.
    settleGivenIncidents(this.store, this.orgId, this.now);
    refreshIncidents(this.store, this.orgId, { now: this.now, gapMs: this.incidentGapMs });
    // Retention, as for a sync: a timeline goes back no further than the deliveries kept beside it.
    for (const [datasetId, earliest] of knowledge.timelines) {
      const oldest = this.oldestKept.get(datasetId);
      // Every event kept, none due after the timeline's first entry: nothing to drop, nothing to ask.
      if (oldest !== undefined && (oldest === '' || earliest >= oldest)) continue;
      pruneTimeline(this.store, this.orgId, datasetId);
    }
  }

  /**
   * The first delivery of the file (in file order) that the org holds under a dataset the file does not
   * replace: importing it would list one delivery under two datasets. Those datasets are untouched by
   * the import, so what they hold now is what they held before it.
   */
  private storedElsewhere(file: SnapshotChecker): string | null {
    const others = [...this.stored].filter((datasetId) => !file.datasetIds.has(datasetId));
    if (others.length === 0 || file.deliveries.size === 0) return null;
    const found: { first: { mention: Mention; deliveryId: string; datasetId: string } | null } = {
      first: null,
    };
    const visit = ([deliveryId, datasetId]: SqlValue[]): void => {
      const mention = file.deliveries.get(deliveryId as string);
      if (mention === undefined || file.datasetIds.has(datasetId as string)) return;
      if (found.first === null || before(mention, found.first.mention)) {
        found.first = { mention, deliveryId: deliveryId as string, datasetId: datasetId as string };
      }
    };
    // One pass over the org's stored deliveries (cheaper than a probe per delivery of a large file).
    this.store.eachRow(
      `SELECT e.delivery_id, d.dataset_id FROM datasets d JOIN events e ON e.dataset_pk = d.pk
       WHERE d.org_id = ?1 AND e.delivery_id IS NOT NULL`,
      [this.orgId],
      visit,
    );
    this.store.eachRow(
      'SELECT delivery_id, dataset_id FROM datasets WHERE org_id = ?1 AND delivery_id IS NOT NULL',
      [this.orgId],
      visit,
    );
    if (found.first === null) return null;
    const { mention, deliveryId, datasetId } = found.first;
    return `${mentionPath(mention)}: delivery ${shortQuote(deliveryId)} is already stored under dataset ${shortQuote(datasetId)} of org '${this.orgId}'`;
  }
}
