/**
 * The tasks record of an attempt at one instant: the plan's pipeline steps with their state.
 *
 * - A step that has ended is SUCCEEDED, or FAILED with `shortCode`, `codeDetails` and `message`.
 * - A step that has started and not ended is RUNNING; one not started yet is PENDING.
 * - Steps that never run because an earlier step failed are SKIPPED once the attempt has failed.
 * - `scheduledAt` is the planned start (trigger + the plan's typical offsets), so it is known for
 *   every task and keeps pipeline order; `taskStartedAt`/`taskEndedAt` are the actual times.
 * - A fetch killed by the orchestrator's timeout keeps the worker's last report, RUNNING, as
 *   `reportedStatus`; otherwise `reportedStatus` equals `status`.
 * - A stage's `runId` exists once the stage has started. Group status is `stageStatus` of its
 *   tasks; group timestamp is the latest task end (or start), null (normalize: "") when none.
 */
import type { Task, TasksRecord } from '../../shared/schemas';
import { STAGES, stageStatus, type Stage, type TaskStatus } from '../../shared/status';
import { concat, hex8, iso } from './format';
import { TIMEOUT_CODE, describeFailure } from './failures';
import type { DatasetPlan } from './plan';
import { Rng, hash32 } from './random';
import { stepTimes, type AttemptCourse } from './attemptCourse';

/** `20261121T0630`: the UTC deadline, compact. */
function compactUtc(ms: number): string {
  return (iso(ms) ?? '').slice(0, 16).replace(/[-:]/g, '');
}

export function buildTasksRecord(plan: DatasetPlan, course: AttemptCourse, now: Date | number): TasksRecord {
  const nowMs = typeof now === 'number' ? now : now.getTime();
  const { deliveryId, deadline } = course;
  const failedByNow = course.failedStep >= 0 && course.settleAt !== null && course.settleAt <= nowMs;
  const minute = Math.floor(deadline / 60_000);
  const frameId = concat('frm-', hex8(plan.key), '-', compactUtc(deadline));
  const createdAt = iso(course.createdAt);
  const idStem = concat('tsk-', deliveryId.slice(4), '-');

  const { starts, ends } = stepTimes(plan, course);
  const stageStarted = new Set<Stage>();
  plan.steps.forEach((step, i) => {
    const start = starts[i];
    if (start !== null && start !== undefined && start <= nowMs) stageStarted.add(step.stage);
  });
  const runIds = new Map<Stage, string | null>(
    STAGES.map((stage, s) => [
      stage,
      stageStarted.has(stage) ? `run-${hex8(hash32(plan.key, minute, s))}` : null,
    ]),
  );

  const groups = new Map<Stage, { tasks: Task[]; latest: number | null }>(
    STAGES.map((stage) => [stage, { tasks: [], latest: null }]),
  );
  plan.steps.forEach((step, i) => {
    const start = starts[i] ?? null;
    const end = ends[i] ?? null;
    const started = start !== null && start <= nowMs;
    const ended = started && end !== null && end <= nowMs;
    let status: TaskStatus;
    if (start === null) status = failedByNow ? 'SKIPPED' : 'PENDING';
    else if (!started) status = 'PENDING';
    else if (!ended) status = 'RUNNING';
    else status = i === course.failedStep ? 'FAILED' : 'SUCCEEDED';

    let failure = null;
    if (status === 'FAILED' && course.failureCode !== null) {
      failure = describeFailure(course.failureCode, {
        supplierName: plan.supplier.name,
        supplierHost: plan.supplierHost,
        fileName: `${plan.fileStem}_${compactUtc(deadline).slice(0, 8)}.csv.gz`,
        destinationName: step.destination?.destinationName ?? '',
        destinationType: step.destination?.destinationType ?? '',
        rng: new Rng(hash32(plan.key, minute, 0xfa11)),
      });
    }
    const stageIndex = STAGES.indexOf(step.stage);
    const group = groups.get(step.stage)!;
    group.tasks.push({
      taskId: concat(idStem, String(stageIndex), String(i).padStart(2, '0')),
      taskName: step.name,
      deliveryId,
      cduId: plan.cduId,
      datasetId: plan.datasetId,
      frameId,
      scheduledAt: iso(course.createdAt + step.plannedOffsetMs),
      status,
      reportedStatus: status === 'FAILED' && course.failureCode === TIMEOUT_CODE ? 'RUNNING' : status,
      taskStartedAt: started ? iso(start) : null,
      taskEndedAt: ended ? iso(end) : null,
      shortCode: failure?.shortCode ?? null,
      codeDetails: failure?.codeDetails ?? null,
      message: failure?.message ?? null,
      details: step.destination
        ? { deliveryId, runId: runIds.get(step.stage) ?? null, ...step.destination }
        : { deliveryId, runId: runIds.get(step.stage) ?? null },
      createdAt,
    });
    const touched = ended ? end : started ? start : null;
    if (touched !== null) group.latest = Math.max(group.latest ?? touched, touched);
  });

  const group = (stage: Stage) => {
    const { tasks, latest } = groups.get(stage)!;
    return { status: stageStatus(tasks.map((task) => task.status ?? '')), timestamp: iso(latest), tasks };
  };
  const normalize = group('normalize');
  return {
    ingest: group('ingest'),
    normalize: { ...normalize, timestamp: normalize.timestamp ?? '' },
    process: group('process'),
    dispatch: group('dispatch'),
  };
}
