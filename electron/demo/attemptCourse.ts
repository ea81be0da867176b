/**
 * The course of one delivery attempt: when its data arrives, how long each pipeline step runs,
 * whether and where it fails. A course depends only on the plan and the deadline (its random
 * stream is seeded from both), never on "now", so re-deriving an attempt later shows the same
 * attempt further along: MISSING becomes DELIVERED_LATE when late data arrives, IN_PROGRESS
 * becomes HEALTHY, and so on. Bad stretches come from two places: a supplier outage (outages.ts)
 * fails or starves every attempt of the supplier due in its window; a dataset's own bad spell
 * (`badSpellAt`) makes most of its attempts fail, run late or go missing for a while.
 */
import type { DatasetPlan } from './plan';
import { TIMEOUT_CODE, TIMEOUT_SECONDS } from './failures';
import { concat, hex8 } from './format';
import { supplierOutageAt } from './outages';
import { Rng, hash32, mix32, unitHash } from './random';

export type Outcome = 'ok' | 'late' | 'fail' | 'missing';

export interface AttemptCourse {
  deliveryId: string;
  deadline: number;
  outcome: Outcome;
  /** When the attempt's tasks were created (its trigger); planned step times count from here. */
  createdAt: number;
  /** When ingestion begins, or null when the data never arrives. */
  startAt: number | null;
  /** When dispatch finished (the delivery time); null when it fails or never starts. */
  endAt: number | null;
  /** When the attempt ends, delivered or failed; null when it never starts. */
  settleAt: number | null;
  /** Index into `plan.steps` of the failed step, -1 when none fails. */
  failedStep: number;
  failureCode: string | null;
  /** State of the attempt's random stream before drawing: `stepTimes` replays it. */
  seed: number;
}

/** Per step of the plan, actual start and end (epoch ms); null for steps that never run. */
export interface StepTimes {
  starts: (number | null)[];
  ends: (number | null)[];
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Bad spells are drawn per dataset and 4-day epoch; one lasts 6 h to 3.5 days. */
const EPOCH_MS = 4 * DAY;
/** Share of attempts during a bad spell that follow it (the rest behave normally). */
const BAD_SPELL_GRIP = 0.85;
const BAD_SPELL_SALT = 0x1c1d;
/** The fetch step: every pipeline starts with it (see `drawSteps`), and outages fail it. */
const FETCH_STEP = 0;
const STAGE_WEIGHTS = { ingest: 0.4, normalize: 0.12, process: 0.28, dispatch: 0.2 } as const;

/** Deliveries are identified by dataset and deadline minute: unique, and stable as time advances. */
export function deliveryIdFor(plan: DatasetPlan, deadline: number): string {
  const minute = Math.floor(deadline / MINUTE);
  return concat('dlv-', hex8(mix32(plan.key ^ 0x5bd1e995)), hex8(mix32((minute ^ plan.key) >>> 0)));
}

/** The random stream of one attempt, seeded by dataset and deadline. */
export function attemptRng(plan: DatasetPlan, deadline: number): Rng {
  return new Rng(hash32(plan.key, Math.floor(deadline / MINUTE), 0xa77e));
}

export interface BadSpell {
  outcome: Exclude<Outcome, 'ok'>;
  /** Fixed picks so every failure of one bad spell has the same step and code. */
  stepRoll: number;
  codeRoll: number;
}

/** The bad spell covering `at` for this dataset, if any (an epoch's bad spell may run into the next). */
export function badSpellAt(plan: DatasetPlan, at: number): BadSpell | null {
  const epoch = Math.floor(at / EPOCH_MS);
  for (let e = epoch; e >= epoch - 1; e--) {
    if (unitHash(plan.key, e, BAD_SPELL_SALT, 0) >= plan.rates.badSpell) continue;
    const start = e * EPOCH_MS + unitHash(plan.key, e, BAD_SPELL_SALT, 1) * EPOCH_MS;
    const end = start + 0.25 * DAY + unitHash(plan.key, e, BAD_SPELL_SALT, 2) * 3.25 * DAY;
    if (at < start || at >= end) continue;
    const fails = unitHash(plan.key, e, BAD_SPELL_SALT, 3) < plan.rates.badSpellFail;
    return {
      outcome: fails ? 'fail' : unitHash(plan.key, e, BAD_SPELL_SALT, 4) < 0.5 ? 'missing' : 'late',
      stepRoll: unitHash(plan.key, e, BAD_SPELL_SALT, 5),
      codeRoll: unitHash(plan.key, e, BAD_SPELL_SALT, 6),
    };
  }
  return null;
}

/** A failing step (each stage weighted, steps equal within it) and one of its failure codes. */
function pickFailure(plan: DatasetPlan, stepRoll: number, codeRoll: number): [number, string] {
  const perStage = new Map<string, number>();
  for (const step of plan.steps) perStage.set(step.stage, (perStage.get(step.stage) ?? 0) + 1);
  const weights = plan.steps.map((step) => STAGE_WEIGHTS[step.stage] / (perStage.get(step.stage) ?? 1));
  let roll = stepRoll * weights.reduce((sum, weight) => sum + weight, 0);
  let index = weights.length - 1;
  for (let i = 0; i < weights.length; i++) {
    roll -= weights[i] ?? 0;
    if (roll < 0) {
      index = i;
      break;
    }
  }
  const failures = plan.steps[index]?.failures ?? [];
  return [index, failures[Math.floor(codeRoll * failures.length)] ?? 'E_INTERNAL'];
}

/** Draws the attempt for `deadline` (epoch ms). The default stream makes it reproducible. */
export function drawCourse(
  plan: DatasetPlan,
  deadline: number,
  rng = attemptRng(plan, deadline),
): AttemptCourse {
  return simulate(plan, deadline, rng, null);
}

/** The actual times of each step, replayed from the course's stream. */
export function stepTimes(plan: DatasetPlan, course: AttemptCourse): StepTimes {
  const times: StepTimes = { starts: [], ends: [] };
  simulate(plan, course.deadline, new Rng(course.seed), times);
  return times;
}

/**
 * One draw of an attempt. Called for every attempt of a snapshot, so it keeps to scalars; only
 * with `times` does it also record each step (for the tasks record), replaying the same stream.
 */
function simulate(plan: DatasetPlan, deadline: number, rng: Rng, times: StepTimes | null): AttemptCourse {
  const seed = rng.state;
  // A supplier outage grips every attempt whose ingestion is due in its window, and draws nothing.
  const outage = supplierOutageAt(plan.outages, deadline - plan.typicalMs - plan.slackMs);
  const badSpell = outage === null ? badSpellAt(plan, deadline) : null;
  let outcome: Outcome;
  let failedStep = -1;
  let failureCode: string | null = null;
  if (outage !== null) {
    outcome = outage.shortCode === null ? 'missing' : 'fail';
    if (outage.shortCode !== null) [failedStep, failureCode] = [FETCH_STEP, outage.shortCode];
  } else if (badSpell !== null && rng.chance(BAD_SPELL_GRIP)) {
    outcome = badSpell.outcome;
    if (outcome === 'fail')
      [failedStep, failureCode] = pickFailure(plan, badSpell.stepRoll, badSpell.codeRoll);
  } else {
    const { fail, late, missing } = plan.rates;
    const roll = rng.next();
    outcome =
      roll < fail ? 'fail' : roll < fail + late ? 'late' : roll < fail + late + missing ? 'missing' : 'ok';
  }
  if (outcome === 'fail' && failedStep < 0)
    [failedStep, failureCode] = pickFailure(plan, rng.next(), rng.next());
  const failedInSequence = failedStep >= 0 && plan.steps[failedStep]?.stage !== 'dispatch';

  // Step times relative to the start of ingestion; dispatch steps start together.
  let cursor = 0;
  let dispatchStart = -1;
  let wouldEnd = 0; // if every step ran
  let runEnd = 0; // of the steps that do run
  let failEnd = 0;
  for (let i = 0; i < plan.steps.length; i++) {
    const step = plan.steps[i]!;
    const gap = i === 0 ? 0 : Math.round(rng.range(2_000, 45_000));
    let duration = Math.round(step.typicalMs * (0.75 + 0.6 * rng.next() ** 2));
    if (i === failedStep) {
      duration =
        failureCode === TIMEOUT_CODE
          ? TIMEOUT_SECONDS * 1000
          : Math.max(5_000, Math.round(duration * rng.next()));
    }
    if (step.stage === 'dispatch' && dispatchStart < 0) dispatchStart = cursor;
    const start = (step.stage === 'dispatch' ? dispatchStart : cursor) + gap;
    const end = start + duration;
    if (step.stage !== 'dispatch') cursor = end;
    wouldEnd = Math.max(wouldEnd, end);
    const runs = !(failedInSequence && i > failedStep);
    if (runs) runEnd = Math.max(runEnd, end);
    if (i === failedStep) failEnd = end;
    times?.starts.push(runs ? start : null);
    times?.ends.push(runs ? end : null);
  }

  let startAt: number | null;
  const placeLate = outcome === 'late' || (outcome === 'fail' && outage === null && rng.chance(0.25));
  if (outcome === 'missing') {
    const [min, max] = plan.missingDelayMs;
    // Nothing published in an outage: the delivery never starts.
    startAt =
      outage !== null || rng.chance(0.55) ? null : deadline + Math.round(min + (max - min) * rng.next() ** 2);
  } else if (placeLate) {
    const [min, max] = plan.lateMs;
    startAt = deadline + Math.round(min + (max - min) * rng.next() ** 3) - wouldEnd;
  } else {
    startAt = deadline - Math.round(rng.range(0.05, 1) * plan.slackMs) - wouldEnd;
  }
  if (times !== null) {
    const shift = (value: number | null) => (value === null || startAt === null ? null : startAt + value);
    times.starts = times.starts.map(shift);
    times.ends = times.ends.map(shift);
  }

  const nominalTrigger = deadline - plan.typicalMs - plan.slackMs;
  const settle = startAt === null ? null : startAt + (failedInSequence ? failEnd : runEnd);
  return {
    deliveryId: deliveryIdFor(plan, deadline),
    deadline,
    outcome,
    createdAt: Math.floor(Math.min(startAt ?? nominalTrigger, nominalTrigger) / 1000) * 1000,
    startAt,
    endAt: failedStep >= 0 ? null : settle,
    settleAt: settle,
    failedStep,
    failureCode,
    seed,
  };
}
