/**
 * A live remote org: the demo's dataset plans, seen at whatever instant the caller asks. Nothing is
 * stored per request: records, statuses and tasks are derived from the plans and the time, so the
 * org "changes" only because time moves (deliveries arrive, run late, fail), and the same instant
 * always answers the same. Datasets can be hidden to play a dataset that left the org.
 */
import type { DatasetRecord, Task, TasksRecord } from '../../../shared/schemas';
import { runDetailsFromTasks } from '../../query/runDetails';
import { attemptStatus } from '../attempt';
import { type SupplierOutage, checkOutages } from '../outages';
import { type DatasetPlan, generateDatasetPlan } from '../plan';
import { unmix32 } from '../random';
import { deriveDataset } from '../record';
import { buildTasksRecord } from '../tasks';
import { deliveryIdFor, drawCourse } from '../attemptCourse';
import { ScheduleOccurrences } from './occurrences';

export const DEFAULT_SIM_ORG_ID = 'org-sim';
export const DEFAULT_HISTORY_DEPTH = 30;

/**
 * Attempts looked at for a dataset's latest status. The newest attempts may still be in progress;
 * no plan keeps more than two in flight at once, so four always reach a settled one when it exists
 * (and list filters, which use `latest`, agree with the records, which use the same window).
 */
const STATUS_WINDOW = 4;

export interface SimulatedOrgOptions {
  datasets: number;
  seed: number;
  orgId?: string;
  /** Share of attempts that fail critically, on average (the demo's default when omitted). */
  failRate?: number;
  /** The most delivery events a record carries (default 30). */
  historyDepth?: number;
  /** Supplier outages beside the seeded ones (the built-in demo stages one in its first minutes). */
  outages?: readonly SupplierOutage[];
}

/** What list filters need beyond the fixed fields: the latest status and delivery. */
export interface LatestDelivery {
  status: string | null;
  deliveryId: string | null;
}

const DELIVERY_ID = /^dlv-([0-9a-f]{8})([0-9a-f]{8})$/;
const MINUTE = 60_000;

export class SimulatedOrg {
  readonly orgId: string;
  readonly seed: number;
  readonly historyDepth: number;
  readonly outages: readonly SupplierOutage[];
  private readonly plans: DatasetPlan[] = [];
  /** Per dataset; datasets with one schedule share one entry. */
  private readonly schedules: ScheduleOccurrences[] = [];
  private readonly byId = new Map<string, number>();
  private readonly byLegacyId = new Map<string, number>();
  /** The first half of a delivery id names the dataset (see `deliveryIdFor`). */
  private readonly byDeliveryPrefix = new Map<number, number>();
  private readonly hidden = new Set<number>();

  constructor(options: SimulatedOrgOptions) {
    const { datasets, seed } = options;
    if (!Number.isSafeInteger(datasets) || datasets < 0)
      throw new RangeError('datasets must be a non-negative integer');
    if (!Number.isFinite(seed)) throw new RangeError('seed must be a finite number');
    const failRate = options.failRate;
    if (failRate !== undefined && !(failRate >= 0 && failRate <= 1))
      throw new RangeError('failRate must be between 0 and 1');
    this.historyDepth = options.historyDepth ?? DEFAULT_HISTORY_DEPTH;
    if (!Number.isSafeInteger(this.historyDepth) || this.historyDepth < 1)
      throw new RangeError('historyDepth must be a positive integer');
    this.orgId = options.orgId ?? DEFAULT_SIM_ORG_ID;
    this.seed = seed;
    this.outages = options.outages ?? [];
    checkOutages(this.outages);

    const depth = Math.max(this.historyDepth, STATUS_WINDOW);
    const shared = new Map<string, ScheduleOccurrences>();
    for (let index = 0; index < datasets; index++) {
      const plan = generateDatasetPlan(index, { seed, orgId: this.orgId, failRate, outages: this.outages });
      const scheduleKey = `${plan.schedule.cronExpression}|${plan.schedule.timezone}`;
      let schedule = shared.get(scheduleKey);
      if (schedule === undefined) {
        schedule = new ScheduleOccurrences(plan.schedule, depth);
        shared.set(scheduleKey, schedule);
      }
      this.plans.push(plan);
      this.schedules.push(schedule);
      this.byId.set(plan.datasetId, index);
      if (plan.legacyDatasetId !== null && !this.byLegacyId.has(plan.legacyDatasetId))
        this.byLegacyId.set(plan.legacyDatasetId, index);
      this.byDeliveryPrefix.set(Number.parseInt(deliveryPrefix(plan), 16), index);
    }
  }

  /** How many datasets the org was built with (hidden ones included). */
  get size(): number {
    return this.plans.length;
  }

  plan(index: number): DatasetPlan {
    const plan = this.plans[index];
    if (plan === undefined) throw new RangeError(`no dataset at index ${index}`);
    return plan;
  }

  isVisible(index: number): boolean {
    return index >= 0 && index < this.plans.length && !this.hidden.has(index);
  }

  /**
   * The dataset's record at `nowMs` with its newest min(count, historyDepth) events; with
   * `includeRunDetails` each event carries the run details of its tasks.
   */
  record(index: number, nowMs: number, count: number, includeRunDetails = false): DatasetRecord {
    const plan = this.plan(index);
    const shown = Math.max(0, Math.min(count, this.historyDepth));
    // Derived over at least the status window, so the latest status does not depend on `count`.
    const occurrences = this.schedules[index]!.at(nowMs);
    const { record, attempts } = deriveDataset(plan, nowMs, Math.max(shown, STATUS_WINDOW), occurrences);
    record.deliveryEventList = attempts.slice(0, shown).map((attempt) =>
      includeRunDetails
        ? {
            ...attempt.event,
            runDetails: runDetailsFromTasks(buildTasksRecord(plan, attempt.course, nowMs)),
          }
        : attempt.event,
    );
    return record;
  }

  /** The latest settled status and newest delivery at `nowMs`, as `record` reports them, cheaply. */
  latest(index: number, nowMs: number): LatestDelivery {
    const plan = this.plan(index);
    const { past, next } = this.schedules[index]!.at(nowMs);
    const result: LatestDelivery = { status: null, deliveryId: null };
    let seen = 0;
    // Newest first: the next deadline's attempt once it has started, then the past ones.
    for (let i = past.length; i >= Math.max(0, past.length - STATUS_WINDOW) && seen < STATUS_WINDOW; i--) {
      const deadline = i === past.length ? next : past[i]!;
      if (deadline === null) continue;
      const course = drawCourse(plan, deadline);
      const status = attemptStatus(course, nowMs);
      if (status === null) continue;
      seen += 1;
      result.deliveryId ??= course.deliveryId;
      if (status !== 'IN_PROGRESS') {
        result.status = status;
        break;
      }
    }
    return result;
  }

  /** `latestDeliveryStatus` at `nowMs`. */
  status(index: number, nowMs: number): string | null {
    return this.latest(index, nowMs).status;
  }

  /** The index of a visible dataset by `datasetId`, else by `legacyDatasetId` (v1 ids keep working). */
  findDataset(datasetIdOrLegacy: string): number | undefined {
    const byId = this.byId.get(datasetIdOrLegacy);
    if (byId !== undefined && !this.hidden.has(byId)) return byId;
    const byLegacy = this.byLegacyId.get(datasetIdOrLegacy);
    return byLegacy !== undefined && !this.hidden.has(byLegacy) ? byLegacy : undefined;
  }

  /**
   * The tasks of a delivery at `nowMs`, or undefined when no visible dataset has that delivery by
   * then. The id is read back into dataset and deadline rather than looked up, so any delivery the
   * org ever reported resolves, however old, without storing any.
   */
  tasks(deliveryId: string, nowMs: number, includeRunDetails: boolean): TasksRecord | undefined {
    const found = this.resolveDelivery(deliveryId);
    if (found === undefined || this.hidden.has(found.index)) return undefined;
    const plan = this.plan(found.index);
    const schedule = this.schedules[found.index]!;
    const { next } = schedule.at(nowMs);
    if ((next !== null && found.deadline > next) || !schedule.isOccurrence(found.deadline)) return undefined;
    const course = drawCourse(plan, found.deadline);
    if (attemptStatus(course, nowMs) === null) return undefined; // not begun, deadline ahead
    const tasks = buildTasksRecord(plan, course, nowMs);
    return includeRunDetails ? tasks : withoutRunIds(tasks);
  }

  /** Hides a dataset (absent from lists, 404 by id); false when there is no such dataset. */
  hide(datasetId: string): boolean {
    const index = this.byId.get(datasetId);
    if (index === undefined) return false;
    this.hidden.add(index);
    return true;
  }

  unhide(datasetId: string): boolean {
    const index = this.byId.get(datasetId);
    if (index === undefined) return false;
    this.hidden.delete(index);
    return true;
  }

  /** Dataset and deadline of a delivery id, when its first half names one of ours. */
  private resolveDelivery(deliveryId: string): { index: number; deadline: number } | undefined {
    const match = DELIVERY_ID.exec(deliveryId);
    if (match === null) return undefined;
    const index = this.byDeliveryPrefix.get(Number.parseInt(match[1]!, 16));
    if (index === undefined) return undefined;
    const plan = this.plan(index);
    const minute = (unmix32(Number.parseInt(match[2]!, 16)) ^ plan.key) >>> 0;
    return { index, deadline: minute * MINUTE };
  }
}

/** The dataset half of its delivery ids (the same for every deadline). */
function deliveryPrefix(plan: DatasetPlan): string {
  return deliveryIdFor(plan, 0).slice('dlv-'.length, 'dlv-'.length + 8);
}

/** Task details without `runId`: the service shows run ids only with includeRunDetails (docs/api.md#one-dataset). */
function withoutRunIds(record: TasksRecord): TasksRecord {
  const strip = <G extends { tasks: Task[] }>(group: G): G => ({
    ...group,
    tasks: group.tasks.map((task) => {
      const { runId: _runId, ...details } = task.details;
      return { ...task, details };
    }),
  });
  return {
    ingest: strip(record.ingest),
    normalize: strip(record.normalize),
    process: strip(record.process),
    dispatch: strip(record.dispatch),
  };
}
