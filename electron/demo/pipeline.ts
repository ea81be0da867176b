/**
 * A dataset's pipeline: the steps of each stage (task names, typical durations, planned offsets)
 * and the destinations its dispatch stage delivers to.
 */
import type { Stage } from '../../shared/status';
import {
  CHECKSUM_STEP,
  DESTINATION_STYLE,
  DESTINATION_TYPES,
  DISPATCH_FAILURES,
  FETCH_STEPS,
  NORMALIZE_STEPS,
  PROCESS_STEPS,
  SUBSCRIBERS,
  VALIDATE_STEP,
  type StepStyle,
} from './catalog';
import { hex8 } from './format';
import { hash32, type Rng } from './random';

export interface Destination {
  destinationId: string;
  destinationName: string;
  destinationType: string;
  subscriberOrgId: string;
}

/** One task of the dataset's pipeline. Dispatch steps (one per destination) run in parallel. */
export interface PipelineStep {
  stage: Stage;
  name: string;
  failures: readonly string[];
  /** Typical running time, and planned start relative to the attempt's trigger. */
  typicalMs: number;
  plannedOffsetMs: number;
  destination: Destination | null;
}

/** Planned trigger-to-delivery time: the sequential steps, then the slowest dispatch. */
export function pipelineMs(steps: readonly PipelineStep[]): number {
  let end = 0;
  for (const step of steps) end = Math.max(end, step.plannedOffsetMs + step.typicalMs);
  return end;
}

export function drawDestinations(rng: Rng, key: number): Destination[] {
  const count = rng.weighted([
    [1, 0.5],
    [2, 0.35],
    [3, 0.15],
  ] as const);
  return rng.subset(SUBSCRIBERS, count).map((subscriber, j) => {
    const type = rng.pick(DESTINATION_TYPES);
    return {
      destinationId: `dst-${hex8(hash32(key, j, 0xd357))}`,
      destinationName: DESTINATION_STYLE[type].name(subscriber.label),
      destinationType: type,
      subscriberOrgId: subscriber.orgId,
    };
  });
}

export function drawSteps(rng: Rng, typicalMs: number, destinations: Destination[]): PipelineStep[] {
  const ingest: StepStyle[] = [rng.pick(FETCH_STEPS)];
  if (rng.chance(0.6)) ingest.push(CHECKSUM_STEP);
  ingest.push(VALIDATE_STEP);
  const normalize = rng.chance(0.2) ? [] : rng.subset(NORMALIZE_STEPS, rng.int(1, 2));
  const process = rng.subset(PROCESS_STEPS, rng.int(1, 3));
  const sequential: [Stage, StepStyle][] = [
    ...ingest.map((s) => ['ingest', s] as [Stage, StepStyle]),
    ...normalize.map((s) => ['normalize', s] as [Stage, StepStyle]),
    ...process.map((s) => ['process', s] as [Stage, StepStyle]),
  ];
  const dispatchWeight = 1.5;
  const totalWeight = sequential.reduce((sum, [, s]) => sum + s.weight, 0) + dispatchWeight;
  const msPerWeight = typicalMs / totalWeight;

  const steps: PipelineStep[] = [];
  let offset = 0;
  for (const [stage, style] of sequential) {
    const ms = Math.round((style.weight * msPerWeight * rng.range(0.8, 1.2)) / 1000) * 1000;
    steps.push({
      stage,
      name: style.name,
      failures: style.failures,
      typicalMs: ms,
      plannedOffsetMs: offset,
      destination: null,
    });
    offset += ms;
  }
  for (const destination of destinations) {
    const type = destination.destinationType as keyof typeof DESTINATION_STYLE;
    steps.push({
      stage: 'dispatch',
      name: DESTINATION_STYLE[type].task,
      failures: DISPATCH_FAILURES,
      typicalMs: Math.round((dispatchWeight * msPerWeight * rng.range(0.6, 1.2)) / 1000) * 1000,
      plannedOffsetMs: offset,
      destination,
    });
  }
  return steps;
}
