/**
 * A sync test bench: the remote simulator on a real loopback port with a manual clock, an in-memory
 * store with a source for it, a runner whose waits are recorded instead of slept, and helpers to read
 * both sides through their HTTP APIs.
 */
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../electron/api/app';
import { createManualClock, type ManualClock } from '../../electron/demo/remote/clock';
import type { SimulatorOptions } from '../../electron/demo/remote/app';
import { type RemoteSimulator, startRemoteSimulator } from '../../electron/demo/remote/server';
import { exportSnapshot } from '../../electron/query/exportSnapshot';
import { createApiKey } from '../../electron/store/tables/apiKeys';
import { Store } from '../../electron/store/database';
import { type Source, saveSource } from '../../electron/store/tables/sources';
import type { RetryPolicy, Sleep } from '../../electron/sync/client';
import type { CycleEvent } from '../../shared/sync';
import { type RunnerOptions, SourceRunner, type Timers } from '../../electron/sync/runner';
import type { DatasetRecord, TasksRecord } from '../../shared/schemas';

export const SIM_KEY = 'sim-test-key';
export const ORG = 'acme';
/** 2026-11-21T04:41:00Z: the simulated remote's time at the start of each test. */
export const START = Date.UTC(2026, 10, 21, 4, 41);
const LOCAL_HOST = '127.0.0.1:47800';

export interface SyncBench {
  simulator: RemoteSimulator;
  clock: ManualClock;
  store: Store;
  source: Source;
  runner: SourceRunner;
  /** Every wait the runner asked for (ms), in order: retries never really sleep. */
  sleeps: number[];
  /** Timers the runner set (ms): the loop's next cycles. */
  scheduled: number[];
  /** Runs the callback of the last timer the runner set (as if its time had come). */
  fireTimer(): void;
  cycles: CycleEvent[];
  localApi: FastifyInstance;
  localKey: string;
  /** GET on the local API (as a script would), parsed. */
  local(path: string): Promise<{ status: number; body: unknown; headers: Record<string, unknown> }>;
  /** GET on the remote simulator, parsed. */
  remote(path: string): Promise<{ status: number; body: unknown }>;
  /** Everything stored for the org, as export writes it: "unchanged" means this text is the same. */
  snapshot(): string;
  close(): Promise<void>;
}

export interface BenchOptions {
  simulator?: Partial<SimulatorOptions>;
  runner?: Partial<RunnerOptions>;
  retry?: RetryPolicy;
}

const benches = new Set<SyncBench>();

/** Closes every bench a test opened (call in afterEach). */
export async function closeBenches(): Promise<void> {
  await Promise.all([...benches].map((bench) => bench.close()));
}

export async function syncBench(options: BenchOptions = {}): Promise<SyncBench> {
  const clock = createManualClock(START);
  const simulator = await startRemoteSimulator({
    port: 0,
    apiKey: SIM_KEY,
    datasets: 60,
    seed: 11,
    clock,
    ...options.simulator,
  });
  const store = await Store.open({ dataDir: null });
  const now = () => new Date(clock.now());
  const source = saveSource(store, { id: 'acme-remote', orgId: ORG, baseUrl: simulator.url }, now());
  const sleeps: number[] = [];
  const scheduled: number[] = [];
  let lastTimer: (() => void) | undefined;
  const cycles: CycleEvent[] = [];
  const sleep: Sleep = async (ms) => {
    sleeps.push(ms);
  };
  const timers: Timers = {
    setTimeout: (fn, ms) => {
      scheduled.push(ms);
      lastTimer = fn;
      return scheduled.length;
    },
    clearTimeout: () => {
      lastTimer = undefined;
    },
  };
  const runner = new SourceRunner({
    store,
    source,
    apiKey: SIM_KEY,
    missingKeyHint: 'set a key',
    now,
    intervals: { pollMs: 60_000, crawlMs: 15 * 60_000 },
    deliveriesPerDataset: 100,
    sleep,
    random: () => 0.5,
    timers,
    retry: options.retry,
    onCycle: (event) => cycles.push(event),
    ...options.runner,
  });
  const localKey = createApiKey(store, ORG, 'tests', now()).key;
  const localApi = await buildApi({
    store,
    port: 47800,
    now,
    logger: false,
    rateLimit: { perSecond: 1e6, burst: 1e6 },
    readThrough: undefined,
  });
  const bench: SyncBench = {
    simulator,
    clock,
    store,
    source,
    runner,
    sleeps,
    scheduled,
    fireTimer: () => {
      const fn = lastTimer;
      lastTimer = undefined;
      if (!fn) throw new Error('no timer is set');
      fn();
    },
    cycles,
    localApi,
    localKey,
    async local(path) {
      const response = await localApi.inject({
        method: 'GET',
        url: path,
        headers: { host: LOCAL_HOST, authorization: `Bearer ${localKey}` },
      });
      return { status: response.statusCode, body: response.json(), headers: response.headers };
    },
    async remote(path) {
      const response = await fetch(simulator.url + path, { headers: { Authorization: `Bearer ${SIM_KEY}` } });
      return { status: response.status, body: await response.json() };
    },
    snapshot() {
      let text = '';
      exportSnapshot(store, ORG, (chunk) => (text += chunk));
      return text;
    },
    async close() {
      benches.delete(bench);
      await runner.stop();
      await localApi.close();
      await simulator.close();
      await store.close();
    },
  };
  benches.add(bench);
  return bench;
}

interface Page {
  items: DatasetRecord[];
  nextPageToken: string;
}

/** Every record of a list, walking its pages (either side's API). */
export async function allRecords(
  get: (path: string) => Promise<{ status: number; body: unknown }>,
  query = '',
): Promise<DatasetRecord[]> {
  const records: DatasetRecord[] = [];
  let token = '';
  for (let pages = 0; pages < 1000; pages++) {
    const path = `/v2/ops/health/datasets/deliveries?pageSize=50${query}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
    const { status, body } = await get(path);
    if (status !== 200) throw new Error(`${path}: HTTP ${status} ${JSON.stringify(body)}`);
    const page = body as Page;
    records.push(...page.items);
    token = page.nextPageToken;
    if (!token) return records;
  }
  throw new Error('paging does not end');
}

export const byId = (records: DatasetRecord[]): DatasetRecord[] =>
  [...records].sort((a, b) => (a.datasetId < b.datasetId ? -1 : a.datasetId > b.datasetId ? 1 : 0));

export type { TasksRecord };
