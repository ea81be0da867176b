/**
 * Tasks of FAILED deliveries, fetched as soon as a cycle has stored them, so failure reasons are there
 * offline (DESIGN.md §4). Concurrency-limited; a fetch that fails is counted and tried again next cycle
 * (and the local tasks endpoint reads through on demand).
 */
import pLimit from 'p-limit';
import type { TasksRecord } from '../../shared/schemas';
import type { SyncCounts } from '../../shared/sync';
import { writeTasks } from '../store/datasetWriter';
import { RemoteError } from './client';
import type { CycleContext } from './context';
import { fetchTasks } from './remote';
import { inSlices } from './slices';
import { failedDeliveriesWithoutTasks } from './storedState';

export async function fetchFailedTasks(ctx: CycleContext, counts: SyncCounts): Promise<void> {
  const { store, orgId } = ctx;
  const deliveries = await store.whenIdle(() => failedDeliveriesWithoutTasks(store, orgId));
  if (deliveries.length === 0) return;
  const limit = pLimit(ctx.concurrency);
  const fetched: [string, TasksRecord][] = [];
  let done = 0;
  await Promise.all(
    deliveries.map((deliveryId) =>
      limit(async () => {
        try {
          const tasks = await fetchTasks(ctx.client, deliveryId, ctx.signal);
          if (tasks === null) {
            counts.tasksFailed += 1;
            return;
          }
          fetched.push([deliveryId, tasks]);
        } catch (error) {
          // Stopping, or a key the remote now refuses, ends the whole cycle; anything else waits for the next.
          if (ctx.signal?.aborted || (error instanceof RemoteError && error.kind === 'unauthorized')) {
            limit.clearQueue();
            throw error;
          }
          counts.tasksFailed += 1;
        } finally {
          done += 1;
          ctx.progress(`tasks of FAILED deliveries: ${done} of ${deliveries.length}`);
        }
      }),
    ),
  );
  if (fetched.length === 0) return;
  // One commit for all of them (each commit would cost a save of the whole database).
  await store.transactionInChunks(async (slice) =>
    inSlices(
      slice,
      fetched,
      ([deliveryId, tasks]) => writeTasks(store, orgId, deliveryId, tasks),
      ctx.signal,
    ),
  );
  counts.tasksFetched += fetched.length;
}
