/**
 * Snapshots: `{ "datasets": [records as the single-dataset endpoint returns them], "tasks": {
 * "<deliveryId>": tasks record } }` (DESIGN.md §7). Import validates the whole file before writing
 * anything, then writes it in one transaction (export, a read, is query/exportSnapshot.ts).
 */
import type { DatasetRecord, TasksRecord } from '../../shared/schemas';
import type { Store } from './database';
import {
  DEFAULT_DELIVERIES_PER_DATASET,
  hasDelivery,
  pruneTasks,
  writeDataset,
  writeTasks,
} from './datasetWriter';
import { RecordProblem, normalizeDatasetRecord, normalizeTasksRecord, strictContext } from './normalize';
import { ensureOrg } from './orgs';

export interface ParsedSnapshot {
  datasets: DatasetRecord[];
  tasks: Map<string, TasksRecord>;
}

export class SnapshotError extends Error {}

/** Parses and validates snapshot text; the error names the JSON path of the first problem. */
export function parseSnapshot(text: string): ParsedSnapshot {
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    throw new SnapshotError(`not valid JSON: ${(error as Error).message}`);
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new SnapshotError('$: expected an object with "datasets" (and optionally "tasks")');
  }
  const { datasets, tasks } = input as { datasets?: unknown; tasks?: unknown };
  if (!Array.isArray(datasets)) throw new SnapshotError('$.datasets: expected an array of dataset records');
  const ctx = strictContext();
  try {
    const records = datasets.map((record, i) => normalizeDatasetRecord(ctx, record, `$.datasets[${i}]`)!);
    const seen = new Map<string, number>();
    records.forEach((record, i) => {
      const earlier = seen.get(record.datasetId);
      if (earlier !== undefined) {
        throw new RecordProblem(
          `$.datasets[${i}].datasetId`,
          `'${record.datasetId}' also appears at $.datasets[${earlier}]`,
        );
      }
      seen.set(record.datasetId, i);
      // Events merge by deliveryId: two with the same id in one record would silently become one.
      const deliveries = new Map<string, number>();
      record.deliveryEventList.forEach((event, j) => {
        if (event.deliveryId === null) return;
        const first = deliveries.get(event.deliveryId);
        if (first !== undefined) {
          throw new RecordProblem(
            `$.datasets[${i}].deliveryEventList[${j}].deliveryId`,
            `'${event.deliveryId}' also appears at $.datasets[${i}].deliveryEventList[${first}]`,
          );
        }
        deliveries.set(event.deliveryId, j);
      });
    });
    const taskRecords = new Map<string, TasksRecord>();
    if (tasks !== undefined && tasks !== null) {
      if (typeof tasks !== 'object' || Array.isArray(tasks)) {
        throw new RecordProblem('$.tasks', 'expected an object keyed by deliveryId');
      }
      for (const [deliveryId, record] of Object.entries(tasks)) {
        taskRecords.set(
          deliveryId,
          normalizeTasksRecord(ctx, record, `$.tasks[${JSON.stringify(deliveryId)}]`)!,
        );
      }
    }
    return { datasets: records, tasks: taskRecords };
  } catch (error) {
    if (error instanceof RecordProblem) throw new SnapshotError(error.message);
    throw error;
  }
}

export interface ImportOptions {
  now: Date;
  deliveriesPerDataset?: number;
}

/**
 * Writes the snapshot into the org: each dataset in it replaces the stored one of the same id (record
 * and events), datasets not in the file are left as they are. All or nothing.
 */
export function importSnapshot(
  store: Store,
  orgId: string,
  snapshot: ParsedSnapshot,
  options: ImportOptions,
): void {
  const deliveriesPerDataset = options.deliveriesPerDataset ?? DEFAULT_DELIVERIES_PER_DATASET;
  const inFile = new Set(
    snapshot.datasets.flatMap((record) => [
      record.deliveryId,
      ...record.deliveryEventList.map((e) => e.deliveryId),
    ]),
  );
  store.transaction(() => {
    ensureOrg(store, orgId, options.now);
    // Tasks must belong to a delivery of the file or of the org; retention may then drop old ones.
    for (const deliveryId of snapshot.tasks.keys()) {
      if (!inFile.has(deliveryId) && !hasDelivery(store, orgId, deliveryId)) {
        throw new SnapshotError(
          `$.tasks[${JSON.stringify(deliveryId)}]: no dataset of the file or of org '${orgId}' has a delivery with this id`,
        );
      }
    }
    for (const record of snapshot.datasets) {
      writeDataset(store, orgId, record, { events: 'replace', deliveriesPerDataset });
    }
    for (const [deliveryId, tasks] of snapshot.tasks) writeTasks(store, orgId, deliveryId, tasks);
    pruneTasks(store, orgId);
  });
}
