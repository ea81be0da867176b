/**
 * The health rules of docs/architecture.md#how-health-is-derived hold for generated data, checked
 * over many seeds and instants.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateDemoSnapshot } from '../../../electron/demo/generate';
import { isOccurrence, nextOccurrenceAfter } from '../../../electron/demo/schedule';
import type { DatasetRecord, DeadlineConfig, Snapshot, TasksRecord } from '../../../shared/schemas';
import { STAGES, stageStatus } from '../../../shared/status';

const occurrenceChecks = new Map<string, boolean>();
/** isOccurrence, memoized: datasets share schedules and instants. */
function occurs(config: DeadlineConfig, at: number): boolean {
  const key = `${config.cronExpression}|${config.timezone}|${at}`;
  let found = occurrenceChecks.get(key);
  if (found === undefined) occurrenceChecks.set(key, (found = isOccurrence(config, at)));
  return found;
}
const ms = (text: string | null) => (text === null ? Number.NaN : Date.parse(text));
const SETTLED = ['HEALTHY', 'DELIVERED_LATE', 'MISSING', 'FAILED'];
const TASK_STATUSES = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'SKIPPED'];

function checkRecord(record: DatasetRecord, tasksByDelivery: Snapshot['tasks'], now: number): void {
  const events = record.deliveryEventList;
  const tasksOf = (id: string | null) => (id === null ? undefined : tasksByDelivery?.[id]);
  expect(record.deliveryId).toBe(events[0]?.deliveryId ?? null);

  // Newest first, by deadline then delivery time.
  for (let i = 1; i < events.length; i++) {
    const [newer, older] = [events[i - 1]!, events[i]!];
    expect(ms(newer.deliveryDeadline)).toBeGreaterThanOrEqual(ms(older.deliveryDeadline));
  }

  const next = ms(record.nextExpectedDeliveryTimestamp);
  expect(next).toBeGreaterThan(now);
  expect(next).toBe(nextOccurrenceAfter(record.currentProcessingDeadlineConfig, now));

  events.forEach((event, position) => {
    const deadline = ms(event.deliveryDeadline);
    const delivered = event.deliveredAt === null ? null : ms(event.deliveredAt);
    expect(event.processingDeadlineConfig).toEqual(record.currentProcessingDeadlineConfig);
    expect(occurs(event.processingDeadlineConfig, deadline)).toBe(true);
    // Only the newest attempt may be for the upcoming deadline (it has started early).
    if (deadline > now) {
      expect(position).toBe(0);
      expect(deadline).toBe(next);
    }
    if (delivered !== null) expect(delivered).toBeLessThanOrEqual(now);
    switch (event.status) {
      case 'HEALTHY':
        expect(delivered).not.toBeNull();
        expect(delivered!).toBeLessThanOrEqual(deadline);
        break;
      case 'DELIVERED_LATE':
        expect(delivered).not.toBeNull();
        expect(delivered!).toBeGreaterThan(deadline);
        break;
      case 'MISSING':
        expect(delivered).toBeNull();
        expect(deadline).toBeLessThanOrEqual(now);
        break;
      case 'FAILED': {
        expect(delivered).toBeNull();
        const tasks = tasksOf(event.deliveryId);
        expect(tasks).toBeDefined();
        const failed = STAGES.flatMap((s) => tasks![s].tasks).filter((t) => t.status === 'FAILED');
        expect(failed.length).toBe(1);
        expect(failed[0]!.shortCode).toMatch(/^E_[A-Z_]+$/);
        expect(failed[0]!.message).toBeTruthy();
        expect(failed[0]!.codeDetails).toBeTruthy();
        break;
      }
      case 'IN_PROGRESS':
        // Started and not finished: only attempts due recently (late data arrives within 3 days).
        expect(delivered).toBeNull();
        expect(deadline).toBeGreaterThan(now - 4 * 86_400_000);
        break;
      default:
        throw new Error(`unexpected status ${event.status}`);
    }
  });

  const settled = events.find((e) => e.status !== 'IN_PROGRESS');
  expect(record.latestDeliveryStatus).toBe(settled?.status ?? null);
  expect(record.latestDeliveryTimestamp).toBe(
    settled ? (settled.deliveredAt ?? settled.deliveryDeadline) : null,
  );

  // A latest attempt that is not HEALTHY always has its tasks, consistent with its status; a HEALTHY
  // one has none unless it is FAILED history (tasks are what a sync mirrors: failures and trouble).
  const latest = events[0];
  if (latest && latest.status !== 'HEALTHY') {
    checkTasks(tasksOf(latest.deliveryId), latest.status, latest.deliveredAt, now);
  }
  if (latest?.status === 'HEALTHY') expect(tasksOf(latest.deliveryId)).toBeUndefined();
}

function checkTasks(
  tasks: TasksRecord | undefined,
  status: string | null,
  deliveredAt: string | null,
  now: number,
) {
  expect(tasks).toBeDefined();
  const record = tasks!;
  const all = STAGES.flatMap((stage) => record[stage].tasks);
  for (const stage of STAGES) {
    const group = record[stage];
    expect(group.status).toBe(stageStatus(group.tasks.map((t) => t.status ?? '')));
    const touched = group.tasks
      .map((t) => ms(t.taskEndedAt ?? t.taskStartedAt))
      .filter((t) => !Number.isNaN(t));
    const expected = touched.length === 0 ? null : new Date(Math.max(...touched)).toISOString();
    expect(group.timestamp).toBe(stage === 'normalize' ? (expected ?? '') : expected);
    const order = [...group.tasks].sort(
      (a, b) => ms(a.scheduledAt) - ms(b.scheduledAt) || (a.taskId ?? '').localeCompare(b.taskId ?? ''),
    );
    expect(order).toEqual(group.tasks);
    for (const task of group.tasks) {
      expect(TASK_STATUSES).toContain(task.status);
      const failed = task.status === 'FAILED';
      expect(task.shortCode !== null).toBe(failed);
      expect(task.message !== null).toBe(failed);
      expect(task.codeDetails !== null).toBe(failed);
      expect(Object.keys(task.details).sort()).toEqual(
        stage === 'dispatch'
          ? ['deliveryId', 'destinationId', 'destinationName', 'destinationType', 'runId', 'subscriberOrgId']
          : ['deliveryId', 'runId'],
      );
      if (task.taskStartedAt !== null) expect(ms(task.taskStartedAt)).toBeLessThanOrEqual(now);
      if (task.taskEndedAt !== null)
        expect(ms(task.taskEndedAt)).toBeGreaterThanOrEqual(ms(task.taskStartedAt));
    }
  }
  expect(record.ingest.tasks.length).toBeGreaterThan(0);
  expect(record.dispatch.tasks.length).toBeGreaterThan(0);
  if (status === 'MISSING')
    expect(all.every((t) => t.status === 'PENDING' && t.taskStartedAt === null)).toBe(true);
  if (status === 'HEALTHY' || status === 'DELIVERED_LATE') {
    expect(all.every((t) => t.status === 'SUCCEEDED')).toBe(true);
    const lastDispatch = Math.max(...record.dispatch.tasks.map((t) => ms(t.taskEndedAt)));
    expect(new Date(lastDispatch).toISOString()).toBe(deliveredAt);
  }
  if (status === 'FAILED') {
    // The failure ended the attempt: nothing runs or waits any more, later steps were skipped.
    expect(all.some((t) => t.status === 'RUNNING' || t.status === 'PENDING')).toBe(false);
    const failedAt = all.findIndex((t) => t.status === 'FAILED');
    const inDispatch = record.dispatch.tasks.some((t) => t.status === 'FAILED');
    // Dispatch tasks run side by side: the others finish; an earlier failure skips the rest.
    const later = all.slice(failedAt + 1);
    expect(later.every((t) => t.status === (inDispatch ? 'SUCCEEDED' : 'SKIPPED'))).toBe(true);
  }
  if (status === 'IN_PROGRESS')
    expect(all.some((t) => t.status === 'RUNNING' || t.status === 'PENDING')).toBe(true);
}

describe('health rules of generated data', () => {
  it('hold over many seeds and instants', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.date({
          min: new Date('2024-01-01T00:00:00Z'),
          max: new Date('2030-12-31T00:00:00Z'),
          noInvalidDate: true,
        }),
        (seed, now) => {
          const snapshot = generateDemoSnapshot({ datasets: 25, seed, now, deliveriesPerDataset: 12 });
          for (const record of snapshot.datasets) checkRecord(record, snapshot.tasks, now.getTime());
        },
      ),
      { numRuns: 30 },
    );
  });

  it('hold over a larger org, including tasks of every FAILED delivery', () => {
    const now = new Date('2026-03-29T09:17:23.456Z');
    const snapshot = generateDemoSnapshot({ datasets: 800, seed: 2024, now });
    const statuses = new Set<string | null>();
    for (const record of snapshot.datasets) {
      checkRecord(record, snapshot.tasks, now.getTime());
      for (const event of record.deliveryEventList) statuses.add(event.status);
    }
    expect([...statuses].sort()).toEqual([...SETTLED, 'IN_PROGRESS'].sort());
    // Tasks exist exactly for the FAILED attempts and the latest ones that are not HEALTHY.
    const expected = new Set(
      snapshot.datasets.flatMap((d) =>
        d.deliveryEventList
          .filter((e, i) => e.status === 'FAILED' || (i === 0 && e.status !== 'HEALTHY'))
          .map((e) => e.deliveryId),
      ),
    );
    expect(new Set(Object.keys(snapshot.tasks ?? {}))).toEqual(expected);
  });
});
