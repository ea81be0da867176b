/**
 * A real API server on port 0 over an in-memory store filled the way the app fills it (the sync's own
 * commit, then the failed deliveries' tasks), for the /local/v1 tests. Datasets are described as a small
 * table so a test can state what it expects from the same table.
 */
import { request as httpRequest } from 'node:http';
import { type ApiServer, startApiServer } from '../../electron/api/server';
import { type RateLimitOptions } from '../../electron/api/rateLimit';
import { storedDatasetIds } from '../../electron/query/storedHealth';
import { createApiKey } from '../../electron/store/tables/apiKeys';
import { Store } from '../../electron/store/database';
import { writeTasks } from '../../electron/store/tables/datasetWriter';
import { applySync } from '../../electron/sync/apply';
import { ChangeSet, defaultSpoolOptions } from '../../electron/sync/changes';
import type { DatasetRecord, TasksRecord } from '../../shared/schemas';
import { STAGES, type Stage } from '../../shared/status';
import { CONFIG, fixtureTasks } from './fixtures';
import { regroup } from './incidents';

/** One dataset as the remote reports it now: its latest delivery and, when FAILED, why (tasks stored). */
export interface DatasetSpec {
  id: string;
  name: string;
  product: string;
  supplier: { id: string; name: string };
  legacyId?: string;
  status: string;
  deliveryId: string;
  deadline: string;
  deliveredAt: string | null;
  /** The failed delivery's first failed task; absent: its tasks are not stored (yet). */
  failure?: { stage: Stage; shortCode: string; message: string };
}

export function recordOf(spec: DatasetSpec): DatasetRecord {
  return {
    legacyDatasetId: spec.legacyId ?? null,
    datasetId: spec.id,
    datasetName: spec.name,
    cduId: 'cdu-1',
    cduName: 'CDU 1',
    dataProductId: `dp-${spec.product}`,
    dataProductName: spec.product,
    ownerOrgId: 'owner-1',
    supplier: spec.supplier,
    currentProcessingDeadlineConfig: CONFIG,
    deliveryId: spec.deliveryId,
    deliveryEventList: [
      {
        status: spec.status,
        deliveryDeadline: spec.deadline,
        deliveredAt: spec.deliveredAt,
        processingDeadlineConfig: CONFIG,
        deliveryId: spec.deliveryId,
      },
    ],
    latestDeliveryStatus: spec.status,
    latestDeliveryTimestamp: spec.deliveredAt,
    nextExpectedDeliveryTimestamp: '2026-11-22T06:30:00.000Z',
  };
}

/** Tasks where everything succeeded but the first task of `stage`, which failed as given. */
export function failingTasks(spec: DatasetSpec): TasksRecord {
  const tasks = structuredClone(fixtureTasks(spec.deliveryId, spec.id));
  const { stage, shortCode, message } = spec.failure!;
  for (const each of STAGES) {
    tasks[each].status = each === stage ? 'FAILED' : 'SUCCEEDED';
    for (const task of tasks[each].tasks)
      Object.assign(task, {
        status: 'SUCCEEDED',
        reportedStatus: 'SUCCEEDED',
        shortCode: null,
        message: null,
      });
  }
  if (tasks[stage].tasks.length === 0) tasks[stage].tasks.push(structuredClone(tasks.ingest.tasks[0]!));
  // It failed when the delivery says it did (its delivered time, else its deadline).
  const failedAt = spec.deliveredAt ?? spec.deadline;
  Object.assign(tasks[stage].tasks[0]!, {
    status: 'FAILED',
    reportedStatus: 'FAILED',
    shortCode,
    message,
    codeDetails: null,
    taskEndedAt: failedAt,
  });
  tasks[stage].timestamp = failedAt;
  return tasks;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): unknown;
}

export interface LocalFixture {
  store: Store;
  server: ApiServer;
  /** acme's key, globex's key. */
  key: string;
  otherKey: string;
  clock: { now: Date };
  /** One cycle of the org's sync that received these datasets, at the clock's time. */
  sync(orgId: string, ...specs: DatasetSpec[]): Promise<void>;
  request(method: string, path: string, headers?: Record<string, string>): Promise<HttpAnswer>;
  get(path: string, headers?: Record<string, string>): Promise<HttpAnswer>;
  close(): Promise<void>;
}

export async function localFixture(
  options: { rateLimit?: RateLimitOptions; now?: Date } = {},
): Promise<LocalFixture> {
  const store = await Store.open({ dataDir: null });
  const clock = { now: options.now ?? new Date('2026-11-21T06:00:00.000Z') };
  const key = createApiKey(store, 'acme', 'tests', clock.now).key;
  const otherKey = createApiKey(store, 'globex', 'tests', clock.now).key;
  const server = await startApiServer({
    store,
    port: 0,
    now: () => clock.now,
    logger: false,
    rateLimit: options.rateLimit ?? { perSecond: 1e6, burst: 1e6 },
  });

  const request = (method: string, path: string, headers: Record<string, string> = {}) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const sent = httpRequest(
        {
          host: '127.0.0.1',
          port: server.port,
          method,
          path,
          headers: { authorization: `Bearer ${key}`, ...headers },
          agent: false,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body,
              json: () => JSON.parse(body) as unknown,
            });
          });
          response.on('error', reject);
        },
      );
      sent.on('error', reject);
      sent.end();
    });

  const sync = async (orgId: string, ...specs: DatasetSpec[]): Promise<void> => {
    const changes = new ChangeSet(defaultSpoolOptions());
    specs.forEach((spec, i) => changes.add({ record: recordOf(spec), hash: `${spec.id}-${i}` }, 100));
    const stored = new Map(storedDatasetIds(store, orgId).map((id) => [id, true]));
    await applySync(store, { orgId, changes, stored, now: clock.now, deliveriesPerDataset: 100 });
    // The sync then fetches the failed deliveries' tasks.
    store.transaction(() => {
      for (const spec of specs)
        if (spec.failure) writeTasks(store, orgId, spec.deliveryId, failingTasks(spec));
      regroup(store, orgId, clock.now);
    });
  };

  return {
    store,
    server,
    key,
    otherKey,
    clock,
    sync,
    request,
    get: (path, headers) => request('GET', path, headers),
    close: async () => {
      await server.close();
      await store.close();
    },
  };
}
