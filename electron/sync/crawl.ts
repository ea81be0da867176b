/**
 * The full crawl (docs/architecture.md#crawl): every page of the remote list with the largest page size it accepts,
 * committed in one transaction once the walk is complete — only then are datasets the remote no longer
 * lists removed. A failure anywhere leaves the mirror exactly as it was.
 */
import { EMPTY_COUNTS } from '../../shared/sync';
import { remoteHashes } from '../store/tables/fingerprints';
import { hasCompletedCrawl } from '../store/tables/syncRuns';
import { ChangeSet } from './changes';
import { ChangeCollector } from './collect';
import { type CycleContext, type CycleOutcome, FIRST_CRAWL_DELIVERIES, LATER_DELIVERIES } from './context';
import { commitCycle } from './failedTasks';
import { walkList } from './remote';
import { removeLeftoverSpools } from './spool';

export async function runCrawl(ctx: CycleContext): Promise<CycleOutcome> {
  const { store, orgId } = ctx;
  const startedAt = ctx.now();
  const counts = { ...EMPTY_COUNTS };
  const firstSync = await store.whenReadable(() => !hasCompletedCrawl(store, orgId));
  // Crawls (at start, then every 15 minutes) clear what a killed process left; polls touch no disk.
  await removeLeftoverSpools(ctx.spool.dir);
  // The whole org's fingerprints, read once: a complete crawl also needs them to find removed datasets.
  const stored = await remoteHashes(store, orgId);
  const changes = new ChangeSet(ctx.spool, () =>
    ctx.progress(`crawl: more changed datasets than memory keeps: the rest wait on disk`),
  );
  const collector = new ChangeCollector(stored, counts, ctx.client.host, changes);
  try {
    await walkList(
      ctx.client,
      { latestDeliveriesCount: firstSync ? FIRST_CRAWL_DELIVERIES : LATER_DELIVERIES },
      async ({ items, page }) => {
        await collector.addAll(items, ctx.signal);
        ctx.progress(`crawl: page ${page}, ${collector.seen.size.toLocaleString('en-US')} datasets`);
      },
      ctx.signal,
    );
    ctx.progress(`crawl: saving ${changes.count.toLocaleString('en-US')} changed datasets`);
    return await commitCycle(
      ctx,
      { kind: 'crawl', firstSync, counts, changes },
      {
        stored,
        // A skipped record (no datasetId) may be a stored dataset: the crawl is then not complete enough
        // to remove anything (its local history beyond the remote's window could not be fetched again).
        listed: counts.skipped > 0 ? undefined : collector.seen,
        now: startedAt,
      },
    );
  } finally {
    await changes.discard();
  }
}
