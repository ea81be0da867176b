/**
 * Realistic, deterministic demo data (docs/architecture.md#demo-data): an org's datasets with their delivery
 * history and the tasks of every FAILED delivery and of each latest attempt that is not HEALTHY (what a
 * sync mirrors: tasks are fetched for failures, healthy pipelines are read through on demand).
 * Same options, same snapshot: all randomness is seeded and time comes only from `options.now`.
 */
import type { DatasetRecord, Snapshot, TasksRecord } from '../../shared/schemas';
import { DEFAULT_FAIL_RATE } from './defaults';
import { DEFAULT_ORG_ID, generateDatasetPlan } from './plan';
import { deriveDataset } from './record';
import { occurrencesAt } from './schedule';
import { buildTasksRecord } from './tasks';

export interface DemoOptions {
  datasets: number;
  seed: number;
  now: Date;
  /** Delivery events per dataset (default 30). */
  deliveriesPerDataset?: number;
  /** `ownerOrgId` of every dataset (default 'org-demo'). */
  orgId?: string;
  /** Share of attempts with a critical failure, on average (default 0.06). */
  failRate?: number;
}

export const DEMO_DELIVERIES_PER_DATASET = 30;

function check(ok: boolean, message: string): void {
  if (!ok) throw new RangeError(message);
}

/** One generated dataset with the tasks records of its FAILED deliveries and of a troubled latest one. */
export interface DemoDataset {
  record: DatasetRecord;
  tasks: Record<string, TasksRecord>;
}

/**
 * The datasets of `generateDemoSnapshot`, one at a time, so a large org (100k datasets hold
 * millions of events) can be written in chunks without holding the whole snapshot in memory.
 */
export function* generateDemoDatasets(options: DemoOptions): Generator<DemoDataset, void, undefined> {
  const count = options.deliveriesPerDataset ?? DEMO_DELIVERIES_PER_DATASET;
  const failRate = options.failRate ?? DEFAULT_FAIL_RATE;
  const orgId = options.orgId ?? DEFAULT_ORG_ID;
  check(
    Number.isInteger(options.datasets) && options.datasets >= 0,
    'datasets must be a non-negative integer',
  );
  check(Number.isInteger(count) && count >= 0, 'deliveriesPerDataset must be a non-negative integer');
  check(Number.isFinite(options.seed), 'seed must be a finite number');
  check(failRate >= 0 && failRate <= 1, 'failRate must be between 0 and 1');
  check(options.now instanceof Date && !Number.isNaN(options.now.getTime()), 'now must be a valid Date');

  const now = options.now.getTime();
  for (let index = 0; index < options.datasets; index++) {
    const plan = generateDatasetPlan(index, { seed: options.seed, orgId, failRate });
    const { record, attempts } = deriveDataset(plan, now, count, occurrencesAt(plan.schedule, now, count));
    const tasks: Record<string, TasksRecord> = {};
    attempts.forEach((attempt, position) => {
      if (attempt.status === 'FAILED' || (position === 0 && attempt.status !== 'HEALTHY')) {
        tasks[attempt.course.deliveryId] = buildTasksRecord(plan, attempt.course, now);
      }
    });
    yield { record, tasks };
  }
}

/** A whole demo org: `{ datasets, tasks }` as `import` takes it. Same options, same snapshot. */
export function generateDemoSnapshot(options: DemoOptions): Snapshot {
  const datasets: DatasetRecord[] = [];
  const tasks: Record<string, TasksRecord> = {};
  for (const dataset of generateDemoDatasets(options)) {
    datasets.push(dataset.record);
    Object.assign(tasks, dataset.tasks);
  }
  return { datasets, tasks };
}
