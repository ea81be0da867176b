/**
 * A dataset's plan: everything about a demo dataset that does not change with time (identity,
 * schedule, pipeline, destinations, reliability). Each plan is drawn from its own random stream,
 * so dataset `index` is the same whether an org has ten datasets or a hundred thousand, and a live
 * simulator can rebuild any one plan on its own.
 */
import type { DeadlineConfig } from '../../shared/schemas';
import {
  CDUS,
  DATA_PRODUCTS,
  HOURLY_MINUTES,
  MONTHLY_DAYS,
  REGIONS,
  SUPPLIERS,
  VARIANTS,
  WEEKLY_DAYS,
  type ScheduleKind,
} from './catalog';
import { DEFAULT_FAIL_RATE } from './defaults';
import { hex8 } from './format';
import { type OutageSource, type SupplierOutage, outageFailShare } from './outages';
import { drawDestinations, drawSteps, pipelineMs, type Destination, type PipelineStep } from './pipeline';
import { Rng, hash32, hashString, mix32 } from './random';
import { makeDeadlineConfig, type ScheduleInput } from './schedule';

export type { Destination, PipelineStep } from './pipeline';

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
   * Per-attempt probabilities outside bad spells, the chance of a bad spell (a stretch of bad
   * deliveries) per 4-day epoch, and the share of bad spells that are failures.
   */
  rates: { fail: number; late: number; missing: number; badSpell: number; badSpellFail: number };
  /** Ranges (ms) for lateness of late deliveries and the arrival delay of missing ones. */
  lateMs: readonly [number, number];
  missingDelayMs: readonly [number, number];
  /** Where its supplier's outages come from (shared by every dataset of the supplier in the org). */
  outages: OutageSource;
}

export interface PlanOptions {
  seed: number;
  /** Owner org; also mixed into identifiers so two orgs with one seed do not share ids. */
  orgId?: string;
  /** Share of attempts that fail critically, on average over datasets (default 0.06). */
  failRate?: number;
  /** Supplier outages beside the seeded ones (a simulator's staged outage); checked by the caller. */
  outages?: readonly SupplierOutage[];
}

export const DEFAULT_ORG_ID = 'org-demo';

const MINUTE = 60_000;
const NO_OUTAGES: readonly SupplierOutage[] = [];

/** Per reliability class: weight among datasets, fail factor (× failRate), late, missing, bad spell. */
const RELIABILITY: Record<Reliability, readonly [number, number, number, number, number]> = {
  reliable: [0.72, 0.3, 0.03, 0.004, 0.03],
  flaky: [0.17, 1.6, 0.12, 0.02, 0.1],
  troubled: [0.08, 3.2, 0.22, 0.05, 0.25],
  broken: [0.03, 5.5, 0.15, 0.12, 0.5],
};

type Range = readonly [number, number];
/** Per cadence, in minutes: typical duration, slack before the deadline, lateness, missing arrival delay. */
const TIMING: Record<ScheduleKind, Record<'typical' | 'slack' | 'late' | 'missing', Range>> = {
  hourly: { typical: [3, 12], slack: [2, 12], late: [1, 40], missing: [10, 180] },
  daily: { typical: [10, 60], slack: [10, 60], late: [3, 300], missing: [45, 840] },
  weekly: { typical: [20, 120], slack: [30, 180], late: [15, 1800], missing: [180, 4320] },
  monthly: { typical: [20, 120], slack: [30, 180], late: [15, 1800], missing: [180, 4320] },
};

function ms([min, max]: Range): Range {
  return [min * MINUTE, max * MINUTE];
}

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
  const kind = rng.weighted(Object.entries(product.kinds) as [ScheduleKind, number][]);
  const region = rng.pick(REGIONS);
  const variant = rng.pick(VARIANTS[kind]);
  const supplierIndex = (productIndex * 3 + rng.int(0, 2)) % SUPPLIERS.length;
  const supplier = SUPPLIERS[supplierIndex] ?? SUPPLIERS[0]!;
  const cdu = CDUS[product.cdu] ?? CDUS[0]!;
  const legacyNumber = (index * 7919 + (orgSeed(options.seed, orgId) % 1_000_000)) % 1_000_000;

  const reliability = rng.weighted(
    (Object.keys(RELIABILITY) as Reliability[]).map((name) => [name, RELIABILITY[name][0]] as const),
  );
  const [, failFactor, late, missing, badSpell] = RELIABILITY[reliability];
  const timing = TIMING[kind];
  const destinations = drawDestinations(rng, key);
  const steps = drawSteps(rng, Math.round(rng.range(...ms(timing.typical))), destinations);

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
    slackMs: Math.round(rng.range(...ms(timing.slack)) / 1000) * 1000,
    reliability,
    rates: {
      fail: Math.min(0.95, failRate * failFactor),
      late,
      missing,
      badSpell,
      badSpellFail: Math.min(0.7, failRate * 5),
    },
    lateMs: ms(timing.late),
    missingDelayMs: ms(timing.missing),
    outages: {
      orgKey: orgSeed(options.seed, orgId),
      supplierIndex,
      failShare: outageFailShare(failRate, DEFAULT_FAIL_RATE),
      extra: options.outages?.filter((outage) => outage.supplierId === supplier.id) ?? NO_OUTAGES,
    },
  };
}

function drawSchedule(
  rng: Rng,
  kind: ScheduleKind,
  times: readonly string[],
  timezone: string,
): ScheduleInput {
  if (kind === 'hourly') return { minute: rng.pick(HOURLY_MINUTES), hour: '*', timezone };
  const [hour = 0, minute = 0] = rng.pick(times).split(':').map(Number);
  if (kind === 'weekly') return { minute, hour, dayOfWeek: rng.pick(WEEKLY_DAYS), timezone };
  if (kind === 'monthly') return { minute, hour, dayOfTheMonth: rng.pick(MONTHLY_DAYS), timezone };
  return { minute, hour, timezone };
}
