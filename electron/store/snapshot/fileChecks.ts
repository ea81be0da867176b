/**
 * The file's own rules for an import that need no store: each record's shape (normalize.ts), a record's
 * deliveries distinct within it, a tasks record filed under its own delivery. Throws `RecordProblem`.
 * The rules across records (a datasetId once, a delivery under one dataset) are the import's, over
 * the rows it has written (fileLedger.ts, deliveryChecks.ts): what they need grows with the file, so it
 * is kept in the database, not in memory (docs/storage.md "Memory").
 */
import type { DatasetRecord, TasksRecord } from '../../../shared/schemas';
import { STAGES } from '../../../shared/status';
import { MAX_ID_LENGTH, jsonKey, shortQuote } from './importRules';
import { RecordProblem, normalizeDatasetRecord, normalizeTasksRecord, strictContext } from './normalize';

/** Where a delivery is named in the file: an event of a dataset record, or the record itself. */
export interface Mention {
  dataset: number;
  /** Index in `deliveryEventList`, or RECORD for the record's own `deliveryId` (read after its events). */
  event: number;
}
export const RECORD = Number.MAX_SAFE_INTEGER;

export const mentionPath = ({ dataset, event }: Mention): string =>
  event === RECORD
    ? `$.datasets[${dataset}].deliveryId`
    : `$.datasets[${dataset}].deliveryEventList[${event}].deliveryId`;

/** Whether mention `a` comes before `b` in the file. */
export const before = (a: Mention, b: Mention): boolean =>
  a.dataset !== b.dataset ? a.dataset < b.dataset : a.event < b.event;

/**
 * A delivery named twice in one record's events (they would silently merge into one), found before
 * the record is written. `earlier` are the record's events before it (index, deliveryId), in order: one
 * of them may be another dataset's, a problem that comes first in the file (the import looks).
 */
export class RepeatedDelivery extends RecordProblem {
  constructor(
    readonly record: number,
    readonly event: number,
    deliveryId: string,
    first: number,
    readonly earlier: readonly (readonly [event: number, deliveryId: string])[],
  ) {
    super(
      `$.datasets[${record}].deliveryEventList[${event}].deliveryId`,
      `'${deliveryId}' also appears at $.datasets[${record}].deliveryEventList[${first}]`,
    );
  }
}

/** The first delivery named twice in the events of record `index` (the Set is the record's only). */
export function repeatedDelivery(record: DatasetRecord, index: number): RepeatedDelivery | null {
  const events = record.deliveryEventList;
  const seen = new Map<string, number>();
  for (let j = 0; j < events.length; j++) {
    const deliveryId = events[j]!.deliveryId;
    if (deliveryId === null) continue;
    const first = seen.get(deliveryId);
    if (first === undefined) {
      seen.set(deliveryId, j);
      continue;
    }
    const earlier = [...seen].map(([id, at]) => [at, id] as const);
    return new RepeatedDelivery(index, j, deliveryId, first, earlier);
  }
  return null;
}

/** The shape of each record of the file, in file order (the rules across records are the import's). */
export class SnapshotChecker {
  private readonly ctx = strictContext();

  dataset(value: unknown, index: number): DatasetRecord {
    return normalizeDatasetRecord(this.ctx, value, `$.datasets[${index}]`)!;
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
