/**
 * The file's own rules for an import, record by record in file order: each record's shape (normalize.ts)
 * and what holds across records (a datasetId once, a delivery under one dataset, a tasks record filed
 * under its own delivery). Throws `RecordProblem`.
 */
import type { DatasetRecord, TasksRecord } from '../../../shared/schemas';
import { STAGES } from '../../../shared/status';
import { MAX_ID_LENGTH, jsonKey, shortQuote } from './importRules';
import { RecordProblem, normalizeDatasetRecord, normalizeTasksRecord, strictContext } from './normalize';
import type { DeliveryOwner } from './knowledgeWriter';

/** Where a delivery is first named in the file: an event of a dataset record, or the record itself. */
export interface Mention {
  dataset: number;
  /** Index in `deliveryEventList`, or RECORD for the record's own `deliveryId` (read after its events). */
  event: number;
}
const RECORD = Number.MAX_SAFE_INTEGER;

export const mentionPath = ({ dataset, event }: Mention): string =>
  event === RECORD
    ? `$.datasets[${dataset}].deliveryId`
    : `$.datasets[${dataset}].deliveryEventList[${event}].deliveryId`;

/**
 * The file's own rules, record by record in file order: each record's shape (normalize.ts), and what
 * holds across records (a datasetId once, a delivery under one dataset). Throws `RecordProblem`.
 */
export class SnapshotChecker {
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

/** Whether mention `a` comes before `b` in the file. */
export const before = (a: Mention, b: Mention): boolean =>
  a.dataset !== b.dataset ? a.dataset < b.dataset : a.event < b.event;
