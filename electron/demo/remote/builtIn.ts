/**
 * The built-in demo source (DESIGN.md §7): with no sources configured, the app (and `serve --demo`)
 * mirrors a simulated remote org running in-process on loopback. Its clock starts a few hours behind
 * and runs fast until it reaches real time, so within the first two minutes a new user sees a sync,
 * datasets changing and some newly FAILED — and times are never in the future.
 */
import { randomBytes } from 'node:crypto';
import type { Source } from '../../store/sources';
import { createSimClock } from './clock';
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

export interface BuiltInDemo {
  source: Source;
  apiKey: string;
  simulator: RemoteSimulator;
  close(): Promise<void>;
}

export async function startBuiltInDemo(options: {
  now: () => Date;
  datasets?: number;
  seed?: number;
}): Promise<BuiltInDemo> {
  const apiKey = `sim_${randomBytes(24).toString('base64url')}`;
  const simulator = await startRemoteSimulator({
    port: 0,
    apiKey,
    datasets: options.datasets ?? DEMO_DATASETS,
    seed: options.seed ?? 1,
    orgId: 'org-demo',
    clock: createSimClock({ now: () => options.now().getTime(), speed: DEMO_SPEED, lagMs: DEMO_LAG_MS }),
  });
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
    close: () => simulator.close(),
  };
}
