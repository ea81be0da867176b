/**
 * Writes what a sync cycle learned into the store in one transaction, in slices that leave the event
 * loop free (DESIGN.md §1 budget: no stall over 50 ms), and reports the status transitions it made.
 */
import type { StatusTransition } from '../../shared/sync';
import type { Store } from '../store/database';
import type { DatasetRecord } from '../../shared/schemas';
import { type StoredHealth, storedDatasetIds, storedHealth } from '../query/storedHealth';
import { deleteDataset, pruneTasks, writeDataset } from '../store/datasetWriter';
import { ensureOrg, markOrgSynced } from '../store/orgs';
import { endStaleAcknowledgements } from '../store/acknowledgements';
import { addTimelineEntry, forgetDataset, pruneTimeline } from '../store/timeline';
import type { Changes } from './changes';
import { failedDeliveryOf } from './fingerprint';
import { inSlices } from './slices';

export interface ApplyInput {
  orgId: string;
  /** Records that differ from what is stored. */
  changes: Changes;
  /** After a complete crawl: every datasetId the remote listed; stored datasets not among them go. */
  listed?: ReadonlySet<string>;
  /** Every dataset of the org stored before the cycle: the others are new (nothing to read or compare). */
  stored: ReadonlyMap<string, unknown>;
  /** Datasets the remote says no longer exist (a direct fetch answered 404). */
  gone?: readonly string[];
  now: Date;
  deliveriesPerDataset: number;
  signal?: AbortSignal;
}

export interface ApplyResult {
  transitions: StatusTransition[];
  written: number;
  removed: number;
}

/** A transition when the latest status changed, or when a FAILED dataset failed again with a new delivery. */
function transitionOf(before: StoredHealth | undefined, record: DatasetRecord): StatusTransition | null {
  const to = record.latestDeliveryStatus;
  const failed = failedDeliveryOf(record);
  const from = before?.status ?? null;
  if (before !== undefined && from === to && (to !== 'FAILED' || failed === before.failedDeliveryId)) {
    return null;
  }
  return { datasetId: record.datasetId, from, to, deliveryId: to === 'FAILED' ? failed : record.deliveryId };
}

/**
 * What the mirror saw goes on the dataset's timeline, and an acknowledgement the change made stale ends
 * (DESIGN.md §11), in the commit that made the change.
 */
function recordTransition(store: Store, orgId: string, transition: StatusTransition, at: string): void {
  const { datasetId, from, to, deliveryId } = transition;
  addTimelineEntry(store, { orgId, datasetId, at, kind: 'status', from, to, deliveryId });
  // First seen: nothing older to drop (a first sync writes thousands of these).
  if (from !== null) pruneTimeline(store, orgId, datasetId);
}

export async function applySync(store: Store, input: ApplyInput): Promise<ApplyResult> {
  const { orgId } = input;
  const listed = input.listed;
  const removals = listed !== undefined && [...input.stored.keys()].some((id) => !listed.has(id));
  if (input.changes.count === 0 && (input.gone?.length ?? 0) === 0 && !removals) {
    // Most polls and crawls of a quiet org: only the sync time moves. Not a data change (the API's
    // cached pages stay valid; X-Synced-At is read per request).
    await store.whenIdle(() =>
      store.transaction(
        () => {
          ensureOrg(store, orgId, input.now);
          markOrgSynced(store, orgId, input.now);
        },
        { dataChange: false },
      ),
    );
    return { transitions: [], written: 0, removed: 0 };
  }
  const at = input.now.toISOString();
  return store.transactionInChunks(async (slice) => {
    const transitions: StatusTransition[] = [];
    let removed = 0;
    const written = new Set<string>();
    await slice(() => ensureOrg(store, orgId, input.now));
    await input.changes.each(
      slice,
      ({ record, hash }) => {
        // A remote that lists a dataset twice in one crawl: the second write merges into the first.
        const isNew = !input.stored.has(record.datasetId) && !written.has(record.datasetId);
        written.add(record.datasetId);
        const before = isNew ? undefined : storedHealth(store, orgId, record.datasetId);
        const transition = transitionOf(before, record);
        writeDataset(store, orgId, record, {
          events: 'merge',
          deliveriesPerDataset: input.deliveriesPerDataset,
          remoteHash: hash,
          isNew,
        });
        if (transition) {
          transitions.push(transition);
          recordTransition(store, orgId, transition, at);
        }
        // Also without a transition: MISSING again with the next delivery is a new problem.
        if (!isNew)
          endStaleAcknowledgements(
            store,
            orgId,
            record.datasetId,
            record.latestDeliveryStatus,
            transition?.deliveryId ?? record.deliveryId,
            at,
          );
      },
      input.signal,
    );
    const gone = new Set(input.gone ?? []);
    if (input.listed) {
      const listed = input.listed;
      const stored = await slice(() => storedDatasetIds(store, orgId));
      for (const datasetId of stored) if (!listed.has(datasetId)) gone.add(datasetId);
    }
    await inSlices(
      slice,
      [...gone],
      (datasetId) => {
        const before = storedHealth(store, orgId, datasetId);
        if (before && deleteDataset(store, orgId, datasetId)) {
          removed += 1;
          transitions.push({ datasetId, from: before.status, to: null, deliveryId: null });
          forgetDataset(store, orgId, datasetId);
        }
      },
      input.signal,
    );
    await slice(() => {
      input.signal?.throwIfAborted();
      pruneTasks(store, orgId);
      markOrgSynced(store, orgId, input.now);
    });
    return { transitions, written: input.changes.count, removed };
  });
}
