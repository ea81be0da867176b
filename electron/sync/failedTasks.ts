/**
 * Tasks of FAILED deliveries, fetched as soon as a cycle has seen them, so failure reasons are there
 * offline (docs/architecture.md#poll). The fetches run while the cycle's records are being written; the tasks are
 * written once both are done. Concurrency-limited; a fetch that fails is counted and tried again next
 * cycle (and the local tasks endpoint reads through on demand).
 */
import pLimit from 'p-limit';
import type { TasksRecord } from '../../shared/schemas';
import type { SyncCounts, SyncKind } from '../../shared/sync';
import { failedDeliveriesWithoutTasks, hasStoredTasks } from '../query/missingTasks';
import type { Store } from '../store/database';
import { writeTasks } from '../store/tables/datasetWriter';
import { refreshSteps, tasksScope } from '../store/schema/incidents';
import { type ApplyInput, applySync } from './apply';
import type { ChangeSet } from './changes';
import { RemoteError } from './client';
import type { CycleContext, CycleOutcome } from './context';
import { fetchTasks } from './remote';
import { inSlices, stepsInSlices } from './slices';

/** One retry, soon: a tasks endpoint that is down must not hold the cycle (and the polls after it) for minutes. */
const TASKS_RETRY = { retries: 1, baseDelayMs: 1_000, maxRetryAfterMs: 5_000 };

/**
 * The FAILED deliveries whose tasks are not stored: of the stored datasets, and of the changed records
 * (`changed`: the delivery each changed FAILED record names, see ChangeSet.failedDeliveries).
 */
export function deliveriesNeedingTasks(store: Store, orgId: string, changed: readonly string[]): string[] {
  const wanted = new Set(failedDeliveriesWithoutTasks(store, orgId));
  for (const failed of changed) {
    if (wanted.has(failed)) continue;
    if (!hasStoredTasks(store, orgId, failed)) wanted.add(failed);
  }
  return [...wanted];
}

export async function fetchTasksOf(
  ctx: CycleContext,
  deliveries: readonly string[],
  counts: SyncCounts,
): Promise<[string, TasksRecord][]> {
  const limit = pLimit(ctx.concurrency);
  const client = ctx.client.with({ retry: TASKS_RETRY });
  const fetched: [string, TasksRecord][] = [];
  let done = 0;
  await Promise.all(
    deliveries.map((deliveryId) =>
      limit(async () => {
        try {
          const tasks = await fetchTasks(client, deliveryId, ctx.signal);
          if (tasks === null) counts.tasksFailed += 1;
          else fetched.push([deliveryId, tasks]);
        } catch (error) {
          counts.tasksFailed += 1;
          if (ctx.signal?.aborted) throw error;
          // Tasks are a bonus (read-through covers them): a remote that is down or refuses them is left
          // for the next cycle, so the cycle — and the polls behind it — are not held up.
          if (error instanceof RemoteError && (error.kind === 'transient' || error.kind === 'unauthorized')) {
            limit.clearQueue();
          }
        } finally {
          done += 1;
          ctx.progress(`tasks of FAILED deliveries: ${done} of ${deliveries.length}`);
        }
      }),
    ),
  );
  return fetched;
}

/** Writes fetched tasks in one commit (each commit would cost a save of the whole database). */
export async function storeTasks(
  ctx: CycleContext,
  fetched: readonly [string, TasksRecord][],
  counts: SyncCounts,
): Promise<void> {
  if (fetched.length === 0) return;
  const { store, orgId } = ctx;
  await store.transactionInChunks(async (slice) => {
    await inSlices(
      slice,
      fetched,
      ([deliveryId, tasks]) => writeTasks(store, orgId, deliveryId, tasks),
      ctx.signal,
    );
    // A failure whose cause was unknown moves to its own incident, with its true time.
    const datasetIds = await slice(() =>
      tasksScope(
        store,
        orgId,
        fetched.map(([deliveryId]) => deliveryId),
      ),
    );
    await stepsInSlices(
      slice,
      refreshSteps(store, orgId, { now: ctx.now(), gapMs: ctx.incidentGapMs, datasetIds }),
    );
  });
  counts.tasksFetched += fetched.length;
}

/**
 * Starts fetching the tasks the changes need (`changed`: their FAILED deliveries), runs `write` (the
 * cycle's commit) meanwhile, then stores the tasks. A failing write stops the fetches.
 */
export async function withFailedTasks<T>(
  ctx: CycleContext,
  changed: readonly string[],
  counts: SyncCounts,
  write: () => Promise<T>,
): Promise<T> {
  const stop = new AbortController();
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, stop.signal]) : stop.signal;
  const deliveries = await ctx.store.whenReadable(() =>
    deliveriesNeedingTasks(ctx.store, ctx.orgId, changed),
  );
  const fetching = fetchTasksOf({ ...ctx, signal }, deliveries, counts);
  fetching.catch(() => {});
  let result: T;
  try {
    result = await write();
  } catch (error) {
    stop.abort(new Error('the cycle failed'));
    throw error;
  }
  // The cycle's records are committed: from here nothing may fail it, or its transitions would be lost.
  try {
    await storeTasks(ctx, await fetching, counts);
  } catch {
    // Stopped while the tasks were fetched or written: they are fetched again next time.
  }
  return result;
}

/**
 * How a crawl and a poll end: their changes written in one commit (apply.ts) while the tasks of the
 * new failures are fetched, and what the cycle did.
 */
export async function commitCycle(
  ctx: CycleContext,
  cycle: { kind: SyncKind; firstSync: boolean; counts: SyncCounts; changes: ChangeSet },
  input: Pick<ApplyInput, 'stored' | 'listed' | 'gone' | 'now'>,
): Promise<CycleOutcome> {
  const { counts, changes } = cycle;
  const applied = await withFailedTasks(ctx, changes.failedDeliveries, counts, () =>
    applySync(ctx.store, {
      ...input,
      orgId: ctx.orgId,
      changes,
      deliveriesPerDataset: ctx.deliveriesPerDataset,
      incidentGapMs: ctx.incidentGapMs,
      signal: ctx.signal,
    }),
  );
  counts.written = applied.written;
  counts.removed = applied.removed;
  return {
    kind: cycle.kind,
    firstSync: cycle.firstSync,
    transitions: applied.transitions,
    counts,
    learnedAt: input.now.toISOString(),
  };
}
