/**
 * The built-in demo source (docs/architecture.md#demo-data): with no sources configured, the app (and `serve --demo`)
 * mirrors a simulated remote org running in-process on loopback. Its clock starts a few hours behind
 * and runs fast until it reaches real time, so within the first two minutes a new user sees a sync,
 * datasets changing and some newly FAILED — and times are never in the future. It also stages a
 * supplier outage in those minutes: the supplier with the most deliveries due then has its
 * credentials expire, and its datasets fail one after another with the same E_AUTH_FAILED at Ingest,
 * so the first thing a new user sees in Triage is a cause spanning several datasets.
 */
import { randomBytes } from 'node:crypto';
import type { Source } from '../../store/tables/sources';
import { SUPPLIERS } from '../catalog';
import type { OutageCode, SupplierOutage } from '../outages';
import { type DatasetPlan, generateDatasetPlan } from '../plan';
import { nextOccurrenceAfter } from '../schedule';
import { createSimClock } from './clock';
import { SimulatedOrg } from './org';
import { type RemoteSimulator, startRemoteSimulator } from './server';

export const DEMO_SOURCE_ID = 'demo';
/** Not the org `dataset-health demo` fills: mirroring would replace the generated datasets. */
export const DEMO_SOURCE_ORG = 'live-demo';
/** Three simulated hours replayed in the first two real minutes. */
export const DEMO_LAG_MS = 3 * 3_600_000;
export const DEMO_SPEED = 91;
export const DEMO_DATASETS = 500;
/** The demo polls often: its clock runs fast while it catches up. */
export const DEMO_INTERVALS = { pollMs: 10_000, crawlMs: 60_000 };
export const DEMO_ORG_ID = 'org-demo';

const MINUTE = 60_000;
/**
 * The staged outage, in simulated time from the clock's start: it begins after the first sync (about
 * 13 real seconds in) and ends before the clock catches up with real time.
 */
export const DEMO_OUTAGE = {
  afterMs: 20 * MINUTE,
  lengthMs: 150 * MINUTE,
  shortCode: 'E_AUTH_FAILED' satisfies OutageCode,
} as const;
/** The supplier is chosen by its deliveries due in the outage's first hour. */
const BUSIEST_WINDOW_MS = 60 * MINUTE;

export interface BuiltInDemo {
  source: Source;
  apiKey: string;
  simulator: RemoteSimulator;
  /** The outage staged in the first minutes. */
  outage: SupplierOutage;
  close(): Promise<void>;
}

/**
 * How many attempts of the plans' datasets have their ingestion due in [from, to) (the instant a
 * supplier outage checks), per supplier id.
 */
export function attemptsDue(plans: readonly DatasetPlan[], from: number, to: number): Map<string, number> {
  const due = new Map<string, number>();
  for (const plan of plans) {
    const lead = plan.typicalMs + plan.slackMs;
    let count = 0;
    for (let deadline = nextOccurrenceAfter(plan.schedule, from + lead - 1); ;) {
      if (deadline === null || deadline - lead >= to) break;
      count += 1;
      deadline = nextOccurrenceAfter(plan.schedule, deadline);
    }
    if (count > 0) due.set(plan.supplier.id, (due.get(plan.supplier.id) ?? 0) + count);
  }
  return due;
}

/** The demo's outage from `simStart`: the supplier with the most ingestions due in its first hour. */
export function stageDemoOutage(plans: readonly DatasetPlan[], simStart: number): SupplierOutage {
  const start = simStart + DEMO_OUTAGE.afterMs;
  const due = attemptsDue(plans, start, start + BUSIEST_WINDOW_MS);
  let supplierId = SUPPLIERS[0]!.id;
  for (const supplier of SUPPLIERS)
    if ((due.get(supplier.id) ?? 0) > (due.get(supplierId) ?? 0)) supplierId = supplier.id;
  return { supplierId, start, end: start + DEMO_OUTAGE.lengthMs, shortCode: DEMO_OUTAGE.shortCode };
}

export async function startBuiltInDemo(options: {
  now: () => Date;
  datasets?: number;
  seed?: number;
}): Promise<BuiltInDemo> {
  const apiKey = `sim_${randomBytes(24).toString('base64url')}`;
  const datasets = options.datasets ?? DEMO_DATASETS;
  const seed = options.seed ?? 1;
  const clock = createSimClock({ now: () => options.now().getTime(), speed: DEMO_SPEED, lagMs: DEMO_LAG_MS });
  const plans = Array.from({ length: datasets }, (_, index) =>
    generateDatasetPlan(index, { seed, orgId: DEMO_ORG_ID }),
  );
  const outage = stageDemoOutage(plans, clock.now());
  const org = new SimulatedOrg({ datasets, seed, orgId: DEMO_ORG_ID, outages: [outage] });
  const simulator = await startRemoteSimulator({ port: 0, apiKey, org, clock });
  return {
    source: {
      id: DEMO_SOURCE_ID,
      orgId: DEMO_SOURCE_ORG,
      name: 'Demo (simulated remote)',
      baseUrl: simulator.url,
      enabled: true,
      apiKeySealed: null,
      createdAt: options.now().toISOString(),
    },
    apiKey,
    simulator,
    outage,
    close: () => simulator.close(),
  };
}
