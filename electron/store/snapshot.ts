/**
 * Snapshots: `{ "datasets": [records as the single-dataset endpoint returns them], "tasks": {
 * "<deliveryId>": tasks record } }` (DESIGN.md §7). Import validates the whole file before writing
 * anything, then writes it in one transaction (export, a read, is query/exportSnapshot.ts).
 */
import type { DatasetRecord, TasksRecord } from '../../shared/schemas';
import { STAGES } from '../../shared/status';
import type { SqlValue } from 'sql.js';
import type { Store } from './database';
import {
  DEFAULT_DELIVERIES_PER_DATASET,
  hasDelivery,
  pruneTasks,
  writeDataset,
  writeTasks,
} from './datasetWriter';
import { MAX_ID_LENGTH, jsonKey, shortQuote } from './importRules';
import {
  RecordProblem,
  jsonPath,
  normalizeDatasetRecord,
  normalizeTasksRecord,
  strictContext,
} from './normalize';
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
  const unknown = Object.keys(input).find((key) => key !== 'datasets' && key !== 'tasks');
  if (unknown !== undefined) {
    throw new SnapshotError(
      `${jsonPath('$', unknown)}: unknown field ${shortQuote(unknown)} (allowed: datasets, tasks)`,
    );
  }
  const { datasets, tasks } = input as { datasets?: unknown; tasks?: unknown };
  if (!Array.isArray(datasets)) throw new SnapshotError('$.datasets: expected an array of dataset records');
  const ctx = strictContext();
  try {
    const records = datasets.map((record, i) => normalizeDatasetRecord(ctx, record, `$.datasets[${i}]`)!);
    const seen = new Map<string, number>();
    // A delivery belongs to one dataset: the file's first mention of each, by JSON path.
    const owners = new Map<string, { dataset: number; path: string }>();
    const owned = (deliveryId: string | null, dataset: number, path: string): void => {
      if (deliveryId === null) return;
      const owner = owners.get(deliveryId);
      if (owner === undefined) owners.set(deliveryId, { dataset, path });
      else if (owner.dataset !== dataset) {
        throw new RecordProblem(path, `delivery ${shortQuote(deliveryId)} also belongs to ${owner.path}`);
      }
    };
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
        owned(event.deliveryId, i, `$.datasets[${i}].deliveryEventList[${j}].deliveryId`);
      });
      owned(record.deliveryId, i, `$.datasets[${i}].deliveryId`);
    });
    const taskRecords = new Map<string, TasksRecord>();
    if (tasks !== undefined && tasks !== null) {
      if (typeof tasks !== 'object' || Array.isArray(tasks)) {
        throw new RecordProblem('$.tasks', 'expected an object keyed by deliveryId');
      }
      for (const [deliveryId, record] of Object.entries(tasks)) {
        const path = `$.tasks[${jsonKey(deliveryId)}]`;
        if (deliveryId.length > MAX_ID_LENGTH) {
          throw new RecordProblem(
            path,
            `a deliveryId of ${deliveryId.length} characters, over the limit of ${MAX_ID_LENGTH}`,
          );
        }
        const normalized = normalizeTasksRecord(ctx, record, path)!;
        sameDelivery(normalized, deliveryId, path);
        taskRecords.set(deliveryId, normalized);
      }
    }
    return { datasets: records, tasks: taskRecords };
  } catch (error) {
    if (error instanceof RecordProblem) throw new SnapshotError(error.message);
    throw error;
  }
}

/** Every task of a tasks record is of the delivery it is filed under (or does not say). */
function sameDelivery(record: TasksRecord, deliveryId: string, path: string): void {
  for (const stage of STAGES) {
    record[stage].tasks.forEach((task, i) => {
      const taskPath = `${path}.${stage}.tasks[${i}]`;
      for (const [where, value] of [
        [`${taskPath}.deliveryId`, task.deliveryId],
        [`${taskPath}.details.deliveryId`, task.details.deliveryId],
      ] as const) {
        if (value !== null && value !== deliveryId) {
          throw new RecordProblem(
            where,
            `${shortQuote(value)} differs from the delivery the record is filed under, ${shortQuote(deliveryId)}`,
          );
        }
      }
    });
  }
}

/**
 * The first delivery of the file (in file order) that the org already holds under a dataset the file
 * does not replace: importing it would list one delivery under two datasets.
 */
function storedElsewhere(store: Store, orgId: string, snapshot: ParsedSnapshot): string | null {
  const inFile = new Set(snapshot.datasets.map((record) => record.datasetId));
  const fileOwner = new Map<string, string>();
  for (const record of snapshot.datasets) {
    for (const id of [record.deliveryId, ...record.deliveryEventList.map((e) => e.deliveryId)]) {
      if (id !== null) fileOwner.set(id, record.datasetId);
    }
  }
  if (fileOwner.size === 0) return null;
  const conflicts = new Map<string, string>();
  const visit = ([deliveryId, datasetId]: SqlValue[]): void => {
    const owner = fileOwner.get(deliveryId as string);
    if (owner !== undefined && owner !== datasetId && !inFile.has(datasetId as string)) {
      conflicts.set(deliveryId as string, datasetId as string);
    }
  };
  // One pass over the org's stored deliveries (cheaper than a probe per delivery of a large file).
  store.eachRow(
    `SELECT e.delivery_id, d.dataset_id FROM datasets d JOIN events e ON e.dataset_pk = d.pk
     WHERE d.org_id = ?1 AND e.delivery_id IS NOT NULL`,
    [orgId],
    visit,
  );
  store.eachRow(
    'SELECT delivery_id, dataset_id FROM datasets WHERE org_id = ?1 AND delivery_id IS NOT NULL',
    [orgId],
    visit,
  );
  if (conflicts.size === 0) return null;
  for (const [i, record] of snapshot.datasets.entries()) {
    const ids: [string | null, string][] = [
      ...record.deliveryEventList.map(
        (e, j) =>
          [e.deliveryId, `$.datasets[${i}].deliveryEventList[${j}].deliveryId`] as [string | null, string],
      ),
      [record.deliveryId, `$.datasets[${i}].deliveryId`],
    ];
    for (const [id, path] of ids) {
      const stored = id === null ? undefined : conflicts.get(id);
      if (stored !== undefined) {
        return `${path}: delivery ${shortQuote(id!)} is already stored under dataset ${shortQuote(stored)} of org '${orgId}'`;
      }
    }
  }
  return null;
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
    const elsewhere = storedElsewhere(store, orgId, snapshot);
    if (elsewhere !== null) throw new SnapshotError(elsewhere);
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
