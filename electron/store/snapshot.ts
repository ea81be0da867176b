/**
 * Snapshots: `{ "datasets": [records as the single-dataset endpoint returns them], "tasks": {
 * "<deliveryId>": tasks record } }` (docs/architecture.md#snapshots), and the local knowledge of those datasets (docs/architecture.md#the-on-call-layer:
 * `timeline`, `acknowledgements`, `syncOutages`, `incidents`, snapshotKnowledge.ts). An import reads
 * the file record by record (snapshotText.ts), checks each one and writes it at once, all in one
 * transaction: a problem anywhere in the file rolls back what came before it, so the file is imported
 * whole or not at all (docs/storage.md) and is never held in memory whole (docs/architecture.md#performance-budgets). Export, a read, is
 * query/exportSnapshot.ts.
 */
import { type FailureCause, firstFailure } from '../../shared/causes';
import { DEFAULT_INCIDENT_GAP_MS, refreshIncidents, settleGivenIncidents } from './incidents';
import type { DatasetRecord, TasksRecord } from '../../shared/schemas';
import { STAGES } from '../../shared/status';
import type { TimelineEntry } from '../../shared/timeline';
import type { SqlValue } from 'sql.js';
import type { Store } from './database';
import {
  DEFAULT_DELIVERIES_PER_DATASET,
  hasDelivery,
  pruneTasks,
  writeDataset,
  writePackedTasks,
} from './datasetWriter';
import { MAX_ID_LENGTH, jsonKey, shortQuote } from './importRules';
import { RecordProblem, normalizeDatasetRecord, normalizeTasksRecord, strictContext } from './normalize';
import { ensureOrg } from './orgs';
import {
  type DeliveryOwner,
  KnowledgeWriter,
  type SnapshotAcknowledgement,
  type SnapshotIncident,
  type SnapshotSyncOutage,
  normalizeAcknowledgement,
  normalizeIncident,
  normalizeSyncOutage,
  normalizeTimeline,
} from './snapshotKnowledge';
import { SnapshotError, type SnapshotPart, SnapshotSplitter } from './snapshotText';
import { TasksPacker, packTasks } from './tasksBlob';
import { forgetDataset, pruneTimeline } from './timeline';

export { SnapshotError } from './snapshotText';

export interface ParsedSnapshot {
  datasets: DatasetRecord[];
  tasks: Map<string, TasksRecord>;
  /** The local knowledge (all optional: a snapshot from before it was exported has none). */
  timeline?: Map<string, TimelineEntry[]>;
  acknowledgements?: SnapshotAcknowledgement[];
  syncOutages?: SnapshotSyncOutage[];
  /** Given (even empty): they replace the org's incidents; absent: the import groups its failures. */
  incidents?: SnapshotIncident[];
}

export interface ImportOptions {
  now: Date;
  deliveriesPerDataset?: number;
  /** Failures of one cause this close in time are one incident (incidents.ts); default 6 h. */
  incidentGapMs?: number;
}

export interface ImportCounts {
  datasets: number;
  /** Deliveries whose tasks the file gave. */
  tasks: number;
  /** As the file gave them (the timeline before retention dropped old entries). */
  timelineEntries: number;
  acknowledgements: number;
  syncOutages: number;
  incidents: number;
}

/** Where a delivery is first named in the file: an event of a dataset record, or the record itself. */
interface Mention {
  dataset: number;
  /** Index in `deliveryEventList`, or RECORD for the record's own `deliveryId` (read after its events). */
  event: number;
}
const RECORD = Number.MAX_SAFE_INTEGER;

const mentionPath = ({ dataset, event }: Mention): string =>
  event === RECORD
    ? `$.datasets[${dataset}].deliveryId`
    : `$.datasets[${dataset}].deliveryEventList[${event}].deliveryId`;

/**
 * The file's own rules, record by record in file order: each record's shape (normalize.ts), and what
 * holds across records (a datasetId once, a delivery under one dataset). Throws `RecordProblem`.
 */
class SnapshotChecker {
  private readonly ctx = strictContext();
  /** datasetId → its record's index. */
  readonly datasetIds = new Map<string, number>();
  /** Each record's datasetId, by index. */
  readonly datasetIdAt: string[] = [];
  /** Every delivery of the file, where it is first named. */
  readonly deliveries = new Map<string, Mention>();

  dataset(value: unknown, index: number): DatasetRecord {
    const record = normalizeDatasetRecord(this.ctx, value, `$.datasets[${index}]`)!;
    this.record(record, index);
    return record;
  }

  /** The checks across records, for a record already normalized. */
  record(record: DatasetRecord, i: number): void {
    const earlier = this.datasetIds.get(record.datasetId);
    if (earlier !== undefined) {
      throw new RecordProblem(
        `$.datasets[${i}].datasetId`,
        `'${record.datasetId}' also appears at $.datasets[${earlier}]`,
      );
    }
    this.datasetIds.set(record.datasetId, i);
    this.datasetIdAt[i] = record.datasetId;
    const events = record.deliveryEventList;
    for (let j = 0; j < events.length; j++) {
      const deliveryId = events[j]!.deliveryId;
      if (deliveryId === null) continue;
      const first = this.deliveries.get(deliveryId);
      if (first === undefined) {
        this.deliveries.set(deliveryId, { dataset: i, event: j });
        continue;
      }
      // Events merge by deliveryId: two with the same id in one record would silently become one.
      if (first.dataset === i) {
        throw new RecordProblem(
          `$.datasets[${i}].deliveryEventList[${j}].deliveryId`,
          `'${deliveryId}' also appears at $.datasets[${i}].deliveryEventList[${first.event}]`,
        );
      }
      throw new RecordProblem(
        `$.datasets[${i}].deliveryEventList[${j}].deliveryId`,
        `delivery ${shortQuote(deliveryId)} also belongs to ${mentionPath(first)}`,
      );
    }
    if (record.deliveryId !== null) {
      const first = this.deliveries.get(record.deliveryId);
      if (first === undefined) this.deliveries.set(record.deliveryId, { dataset: i, event: RECORD });
      else if (first.dataset !== i) {
        throw new RecordProblem(
          `$.datasets[${i}].deliveryId`,
          `delivery ${shortQuote(record.deliveryId)} also belongs to ${mentionPath(first)}`,
        );
      }
    }
  }

  /** The dataset a delivery of the file belongs to, and where the file says so. */
  owner(deliveryId: string): DeliveryOwner | undefined {
    const mention = this.deliveries.get(deliveryId);
    if (mention === undefined) return undefined;
    return { datasetId: this.datasetIdAt[mention.dataset]!, path: mentionPath(mention) };
  }

  tasks(deliveryId: string, value: unknown): TasksRecord {
    const path = `$.tasks[${jsonKey(deliveryId)}]`;
    if (deliveryId.length > MAX_ID_LENGTH) {
      throw new RecordProblem(
        path,
        `a deliveryId of ${deliveryId.length} characters, over the limit of ${MAX_ID_LENGTH}`,
      );
    }
    const record = normalizeTasksRecord(this.ctx, value, path)!;
    sameDelivery(record, deliveryId, path);
    return record;
  }
}

/** Every task of a tasks record is of the delivery it is filed under (or does not say). */
function sameDelivery(record: TasksRecord, deliveryId: string, path: string): void {
  for (const stage of STAGES) {
    const tasks = record[stage].tasks;
    for (let i = 0; i < tasks.length; i++) {
      const task = tasks[i]!;
      const [where, value] =
        task.deliveryId !== null && task.deliveryId !== deliveryId
          ? ['deliveryId', task.deliveryId]
          : task.details.deliveryId !== null && task.details.deliveryId !== deliveryId
            ? ['details.deliveryId', task.details.deliveryId]
            : [null, null];
      if (where === null) continue;
      throw new RecordProblem(
        `${path}.${stage}.tasks[${i}].${where}`,
        `${shortQuote(value)} differs from the delivery the record is filed under, ${shortQuote(deliveryId)}`,
      );
    }
  }
}

/**
 * Writes checked records into the org, inside the caller's transaction: each dataset replaces the stored
 * one of the same id (record and events); datasets not in the file are left as they are. `finish`
 * makes the checks that need the whole file, and throws `SnapshotError` (the caller rolls back).
 */
class SnapshotWriter {
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

const before = (a: Mention, b: Mention): boolean =>
  a.dataset !== b.dataset ? a.dataset < b.dataset : a.event < b.event;

const refused = (error: unknown): never => {
  if (error instanceof RecordProblem) throw new SnapshotError(error.message);
  throw error;
};

type KnowledgePart = Extract<
  SnapshotPart,
  { kind: 'timeline' | 'acknowledgement' | 'syncOutage' | 'incident' }
>;

const timelinePath = (datasetId: string): string => `$.timeline[${jsonKey(datasetId)}]`;
const acknowledgementPath = (index: number): string => `$.acknowledgements[${index}]`;
const syncOutagePath = (index: number): string => `$.syncOutages[${index}]`;
const incidentPath = (index: number): string => `$.incidents[${index}]`;

/**
 * The knowledge parts of a file: each checked as it is read (its problems come in file order with the
 * records'), written once the file's datasets are all read, as what they say is checked against them:
 * a file that gives them first (export writes them last) has them held until then.
 */
class KnowledgeReader {
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly writer: KnowledgeWriter) {}

  take(part: KnowledgePart, datasetsRead: boolean): void {
    const write = this.check(part);
    if (!datasetsRead) {
      this.waiting.push(write);
      return;
    }
    this.flush();
    write();
  }

  /** Writes what waited for the datasets (call once they are all read). */
  flush(): void {
    for (const write of this.waiting.splice(0)) write();
  }

  private check(part: KnowledgePart): () => void {
    const writer = this.writer;
    if (part.kind === 'timeline') {
      const path = timelinePath(part.datasetId);
      const entries = normalizeTimeline(part.value, path);
      return () => writer.timeline(part.datasetId, entries, path);
    }
    if (part.kind === 'acknowledgement') {
      const path = acknowledgementPath(part.index);
      const ack = normalizeAcknowledgement(part.value, path);
      return () => writer.acknowledgement(ack, path);
    }
    if (part.kind === 'syncOutage') {
      const path = syncOutagePath(part.index);
      const outage = normalizeSyncOutage(part.value, path);
      return () => writer.syncOutage(outage, path);
    }
    const path = incidentPath(part.index);
    const incident = normalizeIncident(part.value, path);
    return () => writer.incident(incident, path);
  }
}

const knowledgeWriter = (store: Store, orgId: string, checker: SnapshotChecker): KnowledgeWriter =>
  new KnowledgeWriter(
    store,
    orgId,
    (datasetId) => checker.datasetIds.get(datasetId),
    (deliveryId) => checker.owner(deliveryId),
  );

/** Parses and validates snapshot text; the error names the JSON path of the first problem. */
export function parseSnapshot(text: string): ParsedSnapshot {
  const checker = new SnapshotChecker();
  const snapshot: Required<Omit<ParsedSnapshot, 'incidents'>> = {
    datasets: [],
    tasks: new Map(),
    timeline: new Map(),
    acknowledgements: [],
    syncOutages: [],
  };
  const incidents: SnapshotIncident[] = [];
  const splitter = new SnapshotSplitter((part) => {
    switch (part.kind) {
      case 'dataset':
        snapshot.datasets.push(checker.dataset(part.value, part.index));
        break;
      case 'tasks':
        snapshot.tasks.set(part.deliveryId, checker.tasks(part.deliveryId, part.value));
        break;
      case 'timeline':
        snapshot.timeline.set(part.datasetId, normalizeTimeline(part.value, timelinePath(part.datasetId)));
        break;
      case 'acknowledgement':
        snapshot.acknowledgements.push(normalizeAcknowledgement(part.value, acknowledgementPath(part.index)));
        break;
      case 'syncOutage':
        snapshot.syncOutages.push(normalizeSyncOutage(part.value, syncOutagePath(part.index)));
        break;
      case 'incident':
        incidents.push(normalizeIncident(part.value, incidentPath(part.index)));
    }
  });
  try {
    splitter.push(Buffer.from(text, 'utf8'));
    splitter.end();
  } catch (error) {
    refused(error);
  }
  return splitter.gave('incidents') ? { ...snapshot, incidents } : snapshot;
}

/**
 * Writes a parsed snapshot into the org: each dataset in it replaces the stored one of the same id
 * (record, events, timeline and acknowledgements), datasets not in the file are left as they are; its
 * sync outages are added (one of the same source and start replaced); its incidents, if it gives them,
 * replace the org's. All or nothing.
 */
export function importSnapshot(
  store: Store,
  orgId: string,
  snapshot: ParsedSnapshot,
  options: ImportOptions,
): void {
  store.transaction(() => {
    const checker = new SnapshotChecker();
    const writer = new SnapshotWriter(store, orgId, options);
    const knowledge = knowledgeWriter(store, orgId, checker);
    try {
      snapshot.datasets.forEach((record, i) => {
        checker.record(record, i);
        writer.dataset(record);
      });
      for (const [deliveryId, tasks] of snapshot.tasks)
        writer.tasks(deliveryId, packTasks(tasks), firstFailure(tasks));
      for (const [datasetId, entries] of snapshot.timeline ?? [])
        knowledge.timeline(datasetId, entries, timelinePath(datasetId));
      snapshot.acknowledgements?.forEach((ack, i) => knowledge.acknowledgement(ack, acknowledgementPath(i)));
      snapshot.syncOutages?.forEach((outage, i) => knowledge.syncOutage(outage, syncOutagePath(i)));
      if (snapshot.incidents !== undefined) {
        knowledge.replaceIncidents();
        snapshot.incidents.forEach((incident, i) => knowledge.incident(incident, incidentPath(i)));
      }
      writer.finish(checker, knowledge);
    } catch (error) {
      refused(error);
    }
  });
}

/**
 * Imports a snapshot file as it is read (`chunks`: its bytes in order). One transaction, written in
 * slices with the event loop free between them (`Store.transactionInChunks`): a bad record, a reader
 * that throws (a signal, a file over its limit) or text that is not JSON rolls back everything.
 */
export async function importSnapshotFile(
  store: Store,
  orgId: string,
  chunks: AsyncIterable<Buffer>,
  options: ImportOptions,
): Promise<ImportCounts> {
  const packer = new TasksPacker<{ deliveryId: string; failure: FailureCause | null }>();
  try {
    return await store.transactionInChunks(async (slice) => {
      const checker = new SnapshotChecker();
      const writer = await slice(() => new SnapshotWriter(store, orgId, options));
      const knowledge = knowledgeWriter(store, orgId, checker);
      const reader = new KnowledgeReader(knowledge);
      const counts = { datasets: 0, tasks: 0 };
      const take = (part: SnapshotPart): void => {
        if (part.kind === 'dataset') {
          writer.dataset(checker.dataset(part.value, part.index));
          counts.datasets++;
        } else if (part.kind === 'tasks') {
          const tasks = checker.tasks(part.deliveryId, part.value);
          packer.add({ deliveryId: part.deliveryId, failure: firstFailure(tasks) }, tasks);
          counts.tasks++;
        } else reader.take(part, splitter.datasetsRead);
      };
      const splitter = new SnapshotSplitter(take);
      const writePacked = (): void => {
        for (const [{ deliveryId, failure }, packed] of packer.take())
          writer.tasks(deliveryId, packed, failure);
      };
      try {
        for await (const chunk of chunks) {
          await slice(() => {
            splitter.push(chunk);
            writePacked();
          });
        }
        await slice(() => {
          splitter.end();
          reader.flush();
          // `"incidents": []`: the org's go all the same (the file says it had none).
          if (splitter.gave('incidents')) knowledge.replaceIncidents();
        });
        await packer.drain();
        await slice(writePacked);
        // An index at a time (the largest, on 300k events at 10k datasets, takes a fifth of a second).
        while (await slice(() => writer.buildIndex()));
        await slice(() => writer.finish(checker, knowledge));
      } catch (error) {
        refused(error);
      }
      return { ...counts, ...knowledge.counts };
    });
  } finally {
    await packer.close();
  }
}
