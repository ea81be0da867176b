/**
 * Snapshots: `{ "datasets": [records as the single-dataset endpoint returns them], "tasks": {
 * "<deliveryId>": tasks record } }` (docs/architecture.md#the-cli), and the local knowledge of those datasets (docs/architecture.md#the-on-call-layer:
 * `timeline`, `acknowledgements`, `syncOutages`, `incidents`, knowledgeRecords.ts). An import reads
 * the file record by record (snapshotText.ts), checks each one and writes it at once, all in one
 * transaction: a problem anywhere in the file rolls back what came before it, so the file is imported
 * whole or not at all (docs/storage.md) and is never held in memory whole (docs/architecture.md#performance-budgets). Export, a read, is
 * query/exportSnapshot.ts.
 */
import { type FailureCause, firstFailure } from '../../../shared/causes';
import type { DatasetRecord, TasksRecord } from '../../../shared/schemas';
import type { TimelineEntry } from '../../../shared/timeline';
import type { Store } from '../database';
import { TasksPacker, packTasks } from '../schema/tasksBlob';
import { SnapshotChecker } from './fileChecks';
import {
  KnowledgeReader,
  acknowledgementPath,
  incidentPath,
  syncOutagePath,
  timelinePath,
} from './knowledgeParts';
import { RecordProblem } from './normalize';
import { type ImportOptions, SnapshotWriter } from './recordWriter';
import {
  type SnapshotAcknowledgement,
  type SnapshotIncident,
  type SnapshotSyncOutage,
  normalizeAcknowledgement,
  normalizeIncident,
  normalizeSyncOutage,
  normalizeTimeline,
} from './knowledgeRecords';
import type { SnapshotLimits } from './snapshotLimits';
import { SnapshotError, type SnapshotPart, SnapshotSplitter } from './snapshotText';

export { SnapshotError } from './snapshotText';
export type { ImportOptions } from './recordWriter';

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

/** What a snapshot holds, part by part: what an export wrote, or what an import read. */
export interface SnapshotCounts {
  datasets: number;
  /** Deliveries whose tasks the file gave. */
  tasks: number;
  /** As the file gave them (an import's, before retention dropped old entries). */
  timelineEntries: number;
  acknowledgements: number;
  syncOutages: number;
  incidents: number;
}

export type ImportCounts = SnapshotCounts;

/**
 * Throws the file's first problem: one the checks across the datasets written before `error` find
 * (they wait for the whole `datasets`), one of the knowledge read after those but not yet written
 * (`held`: it waits for their checks), or `error` itself.
 */
function refused(error: unknown, writer?: SnapshotWriter, held?: () => void): never {
  const earlier = writer?.earlierProblem(error) ?? null;
  if (earlier !== null) throw new SnapshotError(earlier);
  let first = error;
  if (held !== undefined && (error instanceof RecordProblem || error instanceof SnapshotError)) {
    try {
      held();
    } catch (problem) {
      first = problem;
    }
  }
  if (first instanceof RecordProblem) throw new SnapshotError(first.message);
  throw first;
}

/**
 * Parses snapshot text and checks each record's shape; the error names the JSON path of the first
 * problem. The rules across records (a datasetId once, a delivery under one dataset) are checked by
 * `importSnapshot`, over what it writes.
 */
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
    const writer = new SnapshotWriter(store, orgId, options);
    const knowledge = writer.knowledgeWriter();
    try {
      snapshot.datasets.forEach((record, i) => writer.dataset(record, i));
      writer.datasetsDone();
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
      writer.finish(knowledge);
    } catch (error) {
      refused(error, writer);
    }
  });
}

/** How a file is read: its limits (snapshotLimits.ts; tests pass smaller ones), and who hears of progress. */
export interface FileReading {
  limits?: Partial<SnapshotLimits>;
  /** After each chunk: the records read so far. */
  read?: (records: number) => void;
}

/**
 * Imports a snapshot file as it is read (`chunks`: its bytes in order). One transaction, written in
 * slices with the event loop free between them (`Store.transactionInChunks`): a bad record, a reader
 * that throws (a signal, a stalled read, a file that grew) or text that is not JSON rolls back
 * everything. What it keeps of the file to check it is in the database, so its memory does not grow
 * with the file (docs/storage.md "Memory").
 */
export async function importSnapshotFile(
  store: Store,
  orgId: string,
  chunks: AsyncIterable<Buffer>,
  options: ImportOptions,
  reading: FileReading = {},
): Promise<ImportCounts> {
  const packer = new TasksPacker<{ deliveryId: string; failure: FailureCause | null }>();
  try {
    return await store.transactionInChunks(async (slice) => {
      const checker = new SnapshotChecker();
      const writer = await slice(() => new SnapshotWriter(store, orgId, options));
      const knowledge = writer.knowledgeWriter();
      const reader = new KnowledgeReader(knowledge);
      const counts = { datasets: 0, tasks: 0 };
      /** The file's datasets are read, and checked across (`datasetsDone`). */
      let checked = false;
      const take = (part: SnapshotPart): void => {
        if (part.kind === 'dataset') {
          writer.dataset(checker.dataset(part.value, part.index), part.index);
          counts.datasets++;
        } else if (part.kind === 'tasks') {
          const tasks = checker.tasks(part.deliveryId, part.value);
          packer.add({ deliveryId: part.deliveryId, failure: firstFailure(tasks) }, tasks);
          counts.tasks++;
        } else reader.take(part, splitter.datasetsRead, checked);
      };
      const splitter = new SnapshotSplitter(take, writer.file, reading.limits);
      const writePacked = (): void => {
        for (const [{ deliveryId, failure }, packed] of packer.take())
          writer.tasks(deliveryId, packed, failure);
      };
      /**
       * Once the datasets are read: the indexes an import into an empty store dropped are built, an
       * index at a time (the largest, on 300k events at 10k datasets, takes a fifth of a second), then
       * the checks across the datasets; the knowledge read since waits for them (a chunk's worth).
       */
      const datasetsDone = async (): Promise<void> => {
        while (await slice(() => writer.buildIndex()));
        await slice(() => writer.datasetsDone());
        checked = true;
        await slice(() => reader.flushDue());
      };
      try {
        for await (const chunk of chunks) {
          await slice(() => {
            splitter.push(chunk);
            writePacked();
          });
          reading.read?.(splitter.records);
          if (splitter.datasetsRead && !checked) await datasetsDone();
        }
        await slice(() => splitter.end());
        if (!checked) await datasetsDone();
        await slice(() => {
          reader.flush();
          // `"incidents": []`: the org's go all the same (the file says it had none).
          if (splitter.gave('incidents')) knowledge.replaceIncidents();
        });
        await packer.drain();
        await slice(writePacked);
        await slice(() => writer.finish(knowledge));
      } catch (error) {
        // Knowledge after the datasets, waiting for their checks, comes before `error` in the file.
        await slice(() => refused(error, writer, () => writer.datasetsPass && reader.flushDue()));
      }
      return { ...counts, ...knowledge.counts };
    });
  } finally {
    await packer.close();
  }
}
