/**
 * The fast poll (docs/architecture.md#poll): only FAILED and MISSING datasets, asked with a filter, plus a direct
 * fetch of each dataset that was FAILED or MISSING and is no longer listed (it recovered, or is gone).
 * Its cost follows the number of troubled datasets, not the size of the org, so alert latency does
 * not grow with the org.
 */
import pLimit from 'p-limit';
import { EMPTY_COUNTS } from '../../shared/sync';
import { troubledDatasets } from '../query/storedHealth';
import { remoteHashesOf } from '../store/tables/fingerprints';
import { RemoteError } from './client';
import { ChangeSet } from './changes';
import { ChangeCollector } from './collect';
import { type CycleContext, type CycleOutcome, LATER_DELIVERIES } from './context';
import { commitCycle } from './failedTasks';
import { fetchDataset, walkList } from './remote';

export const TROUBLED_FILTER = 'deliveryStatus.in.(FAILED,MISSING)';

/** The remote refused the filter: the caller runs a full crawl instead. */
export class FilterRejected extends Error {}

export async function runPoll(ctx: CycleContext): Promise<CycleOutcome> {
  const { store, orgId } = ctx;
  const startedAt = ctx.now();
  const counts = { ...EMPTY_COUNTS };
  // Reads go on while an export holds the writers; the cycle's commit waits for its end.
  const troubled = await store.whenReadable(() => troubledDatasets(store, orgId));
  // A poll's changes stay far below the memory bound, so it writes no spool; a burst past it would.
  const changes = new ChangeSet(ctx.spool, () =>
    ctx.progress(`poll: more changed datasets than memory keeps: the rest wait on disk`),
  );
  const collector = new ChangeCollector(
    (ids) => remoteHashesOf(store, orgId, ids),
    counts,
    ctx.client.host,
    changes,
  );
  try {
    const gone = await collectTroubled(ctx, collector, troubled);
    return await commitCycle(
      ctx,
      { kind: 'poll', firstSync: false, counts, changes },
      { stored: collector.stored, gone, now: startedAt },
    );
  } finally {
    await changes.discard();
  }
}

/** Collects the listed troubled datasets and those that were troubled; returns the ones that are gone. */
async function collectTroubled(
  ctx: CycleContext,
  collector: ChangeCollector,
  troubled: readonly string[],
): Promise<string[]> {
  try {
    await walkList(
      ctx.client,
      { filter: TROUBLED_FILTER, latestDeliveriesCount: LATER_DELIVERIES },
      async ({ items }) => collector.addAll(items, ctx.signal),
      ctx.signal,
    );
  } catch (error) {
    if (error instanceof RemoteError && error.kind === 'rejected') throw new FilterRejected(error.message);
    throw error;
  }
  const gone: string[] = [];
  const recovered: Record<string, unknown>[] = [];
  const limit = pLimit(ctx.concurrency);
  await Promise.all(
    troubled
      .filter((datasetId) => !collector.seen.has(datasetId))
      .map((datasetId) =>
        limit(async () => {
          const fetched = await fetchDataset(ctx.client, datasetId, LATER_DELIVERIES, ctx.signal);
          if (fetched === null) gone.push(datasetId);
          else recovered.push(fetched);
        }),
      ),
  );
  await collector.addAll(recovered, ctx.signal);
  return gone;
}
