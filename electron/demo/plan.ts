/**
 * A dataset's plan: everything about a demo dataset that does not change with time (identity,
 * schedule, pipeline, destinations, reliability). Each plan is drawn from its own random stream,
 * so dataset `index` is the same whether an org has ten datasets or a hundred thousand, and a live
 * simulator can rebuild any one plan on its own.
 */
import type { DeadlineConfig } from '../../shared/schemas';
import type { Stage } from '../../shared/status';
import {
  CDUS,
  CHECKSUM_STEP,
  DATA_PRODUCTS,
  DESTINATION_STYLE,
  DESTINATION_TYPES,
  DISPATCH_FAILURES,
  FETCH_STEPS,
  HOURLY_MINUTES,
  MONTHLY_DAYS,
  NORMALIZE_STEPS,
  PROCESS_STEPS,
  REGIONS,
  SUBSCRIBERS,
  SUPPLIERS,
  VALIDATE_STEP,
  VARIANTS,
  WEEKLY_DAYS,
  type ScheduleKind,
  type StepStyle,
} from './catalog';
import { hex8 } from './format';
import { Rng, hash32, hashString, mix32 } from './random';
import { makeDeadlineConfig, type ScheduleInput } from './schedule';

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

export type Reliability = 'reliable' | 'flaky' | 'troubled' | 'broken';

export interface DatasetPlan {
  index: number;
  /** 32-bit key, unique per (seed, org, index): seeds identifiers and every attempt's randomness. */
  key: number;
  ownerOrgId: string;
  datasetId: string;
  legacyDatasetId: string | null;
  datasetName: string;
  cduId: string;
  cduName: string;
  dataProductId: string;
  dataProductName: string;
  supplier: { id: string; name: string };
  supplierHost: string;
  /** Supplier file name without date and extension, e.g. `emea_equity_prices`. */
  fileStem: string;
  scheduleKind: ScheduleKind;
  schedule: DeadlineConfig;
  destinations: Destination[];
  steps: PipelineStep[];
  /** Typical trigger-to-delivery time, and the usual margin before the deadline. */
  typicalMs: number;
  slackMs: number;
  reliability: Reliability;
  /**
   * Per-attempt probabilities outside incidents, the chance of an incident (a stretch of bad
   * deliveries) per 4-day epoch, and the share of incidents that are failures.
   */
  rates: { fail: number; late: number; missing: number; incident: number; incidentFail: number };
  /** Ranges (ms) for lateness of late deliveries and the arrival delay of missing ones. */
  lateMs: readonly [number, number];
  missingDelayMs: readonly [number, number];
}

export interface PlanOptions {
  seed: number;
  /** Owner org; also mixed into identifiers so two orgs with one seed do not share ids. */
  orgId?: string;
  /** Share of attempts that fail critically, on average over datasets (default 0.06). */
  failRate?: number;
}

export const DEFAULT_ORG_ID = 'org-demo';
export const DEFAULT_FAIL_RATE = 0.06;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Per reliability class: weight among datasets, fail factor (× failRate), late, missing, incident. */
const RELIABILITY: Record<Reliability, readonly [number, number, number, number, number]> = {
  reliable: [0.72, 0.3, 0.03, 0.004, 0.03],
  flaky: [0.17, 1.6, 0.12, 0.02, 0.1],
  troubled: [0.08, 3.2, 0.22, 0.05, 0.25],
  broken: [0.03, 5.5, 0.15, 0.12, 0.5],
};

/** Typical duration, slack, lateness and missing-arrival ranges (ms) per cadence. */
const TIMING: Record<
  ScheduleKind,
  Record<'typical' | 'slack' | 'late' | 'missing', readonly [number, number]>
> = {
  hourly: {
    typical: [3 * MINUTE, 12 * MINUTE],
    slack: [2 * MINUTE, 12 * MINUTE],
    late: [MINUTE, 40 * MINUTE],
    missing: [10 * MINUTE, 3 * HOUR],
  },
  daily: {
    typical: [10 * MINUTE, HOUR],
    slack: [10 * MINUTE, HOUR],
    late: [3 * MINUTE, 5 * HOUR],
    missing: [45 * MINUTE, 14 * HOUR],
  },
  weekly: {
    typical: [20 * MINUTE, 2 * HOUR],
    slack: [30 * MINUTE, 3 * HOUR],
    late: [15 * MINUTE, 30 * HOUR],
    missing: [3 * HOUR, 72 * HOUR],
  },
  monthly: {
    typical: [20 * MINUTE, 2 * HOUR],
    slack: [30 * MINUTE, 3 * HOUR],
    late: [15 * MINUTE, 30 * HOUR],
    missing: [3 * HOUR, 72 * HOUR],
  },
};

function orgSeed(seed: number, orgId: string): number {
  return hash32(seed, hashString(orgId));
}

/** The dataset key: a bijection of `index` for a given seed and org, so keys (and ids) never collide. */
export function datasetKey(index: number, seed: number, orgId = DEFAULT_ORG_ID): number {
  return mix32((index ^ orgSeed(seed, orgId)) >>> 0);
}

export function generateDatasetPlan(index: number, options: PlanOptions): DatasetPlan {
  const orgId = options.orgId ?? DEFAULT_ORG_ID;
  const failRate = options.failRate ?? DEFAULT_FAIL_RATE;
  const key = datasetKey(index, options.seed, orgId);
  const rng = new Rng(hash32(key, 0x0d47a5e7));

  const productIndex = rng.int(0, DATA_PRODUCTS.length - 1);
  const product = DATA_PRODUCTS[productIndex] ?? DATA_PRODUCTS[0]!;
  const kind = rng.weighted(product.kinds);
  const region = rng.pick(REGIONS);
  const variant = rng.pick(VARIANTS[kind]);
  const supplier = SUPPLIERS[(productIndex * 3 + rng.int(0, 2)) % SUPPLIERS.length] ?? SUPPLIERS[0]!;
  const cdu = CDUS[product.cdu] ?? CDUS[0]!;
  const legacyNumber = (index * 7919 + (orgSeed(options.seed, orgId) % 1_000_000)) % 1_000_000;

  const reliability = rng.weighted(
    (Object.keys(RELIABILITY) as Reliability[]).map((name) => [name, RELIABILITY[name][0]] as const),
  );
  const [, failFactor, late, missing, incident] = RELIABILITY[reliability];
  const timing = TIMING[kind];
  const destinations = drawDestinations(rng, key);
  const steps = drawSteps(rng, Math.round(rng.range(...timing.typical)), destinations);

  return {
    index,
    key,
    ownerOrgId: orgId,
    datasetId: `ds-${hex8(key)}`,
    legacyDatasetId: rng.chance(1 / 3) ? `v1-${String(legacyNumber).padStart(6, '0')}` : null,
    datasetName: `${region.name} ${product.name} ${variant.suffix}`,
    cduId: cdu.id,
    cduName: cdu.name,
    dataProductId: product.id,
    dataProductName: product.name,
    supplier: { id: supplier.id, name: supplier.name },
    supplierHost: supplier.host,
    fileStem: `${region.name}_${product.id.slice(3)}`.toLowerCase().replace(/[^a-z0-9]+/g, '_'),
    scheduleKind: kind,
    schedule: makeDeadlineConfig(drawSchedule(rng, kind, variant.times, region.timezone)),
    destinations,
    steps,
    typicalMs: pipelineMs(steps),
    slackMs: Math.round(rng.range(...timing.slack) / 1000) * 1000,
    reliability,
    rates: {
      fail: Math.min(0.95, failRate * failFactor),
      late,
      missing,
      incident,
      incidentFail: Math.min(0.7, failRate * 5),
    },
    lateMs: timing.late,
    missingDelayMs: timing.missing,
  };
}

/** Planned trigger-to-delivery time: the sequential steps, then the slowest dispatch. */
function pipelineMs(steps: readonly PipelineStep[]): number {
  let end = 0;
  for (const step of steps) end = Math.max(end, step.plannedOffsetMs + step.typicalMs);
  return end;
}

function drawSchedule(
  rng: Rng,
  kind: ScheduleKind,
  times: readonly (readonly [number, number])[],
  timezone: string,
): ScheduleInput {
  if (kind === 'hourly') return { minute: rng.pick(HOURLY_MINUTES), hour: '*', timezone };
  const [hour, minute] = rng.pick(times);
  if (kind === 'weekly') return { minute, hour, dayOfWeek: rng.pick(WEEKLY_DAYS), timezone };
  if (kind === 'monthly') return { minute, hour, dayOfTheMonth: rng.pick(MONTHLY_DAYS), timezone };
  return { minute, hour, timezone };
}

function drawDestinations(rng: Rng, key: number): Destination[] {
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

function drawSteps(rng: Rng, typicalMs: number, destinations: Destination[]): PipelineStep[] {
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
    const ms = Math.round(style.weight * msPerWeight * rng.range(0.8, 1.2));
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
      typicalMs: Math.round(dispatchWeight * msPerWeight * rng.range(0.6, 1.2)),
      plannedOffsetMs: offset,
      destination,
    });
  }
  return steps;
}
