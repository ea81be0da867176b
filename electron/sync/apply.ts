/**
 * Writes what a sync cycle learned into the store in one transaction, in slices that leave the event
 * loop free (docs/architecture.md#performance-budgets: no stall over 50 ms), and reports the status transitions it made.
 */
import type { StatusTransition } from '../../shared/sync';
import type { Store } from '../store/database';
import type { DatasetRecord } from '../../shared/schemas';
import { type StoredHealth, storedDatasetIds, storedHealth } from '../query/storedHealth';
import { deleteDataset, pruneTasksAfter, writeDataset } from '../store/tables/datasetWriter';
import { DeferredIndexes } from '../store/tables/deferredIndexes';
import { DEFAULT_INCIDENT_GAP_MS, refreshScope, refreshSteps } from '../store/schema/incidents';
import { ensureOrg, markOrgSynced } from '../store/tables/orgs';
import { endStaleAcknowledgements, openAcknowledgements } from '../store/tables/acknowledgements';
import { hasTeamLog, reapplyForDataset } from '../store/tables/teamLog';
import { addTimelineEntry, forgetDataset, pruneTimeline } from '../store/tables/timeline';
import type { Changes } from './changes';
import { failedDeliveryOf } from './fingerprint';
import { inSlices, stepsInSlices } from './slices';

/** Records from which a first sync builds the datasets' sort indexes at its end. */
export const DEFER_INDEXES_FROM = 20_000;
/** Tasks records looked at per slice when pruning those no delivery names any more. */
const PRUNE_BATCH = 1000;

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
  /** Failures of one cause this close in time are one incident (store/schema/incidents.ts); default 6 h. */
  incidentGapMs?: number;
  signal?: AbortSignal;
  /** From this many records a first sync sets the datasets' sort indexes aside (tests lower it). */
  deferIndexesFrom?: number;
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
 * The local knowledge of a changed dataset (docs/architecture.md#the-on-call-layer), in the commit that changed it: a status
 * transition goes on its timeline; an acknowledgement the change made stale ends (also without a
 * transition: MISSING again with the next delivery is a new problem); and, as its history's oldest
 * retained delivery may have moved, timeline entries older than it go. A dataset new to the mirror has
 * nothing of this: a first sync writes only its thousands of "first seen" entries.
 */
function recordChange(
  store: Store,
  orgId: string,
  record: DatasetRecord,
  transition: StatusTransition | null,
  knowledge: { isNew: boolean; acknowledged: boolean; at: string; teamLog: boolean },
): void {
  const { at } = knowledge;
  if (transition) {
    const { datasetId, from, to, deliveryId } = transition;
    addTimelineEntry(store, { orgId, datasetId, at, kind: 'status', from, to, deliveryId });
  }
  // A teammate's acknowledgement of this failure may have come before the failure did.
  if (knowledge.teamLog) reapplyForDataset(store, orgId, record.datasetId, new Date(at));
  if (knowledge.isNew) return;
  if (knowledge.acknowledged)
    endStaleAcknowledgements(
      store,
      orgId,
      record.datasetId,
      record.latestDeliveryStatus,
      transition?.deliveryId ?? record.deliveryId,
      at,
    );
  pruneTimeline(store, orgId, record.datasetId);
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
    // A large first sync into a new data directory: the datasets' sort indexes are built once, at the
    // end (docs/decisions.md "Indexes built once, into empty tables"). Below DEFER_INDEXES_FROM records
    // their pages stay in SQLite's cache anyway, and each build would be a stall of its own.
    const deferred = await slice(() =>
      DeferredIndexes.whileEmpty(
        store,
        input.changes.count >= (input.deferIndexesFrom ?? DEFER_INDEXES_FROM) ? ['datasets'] : [],
      ),
    );
    // Read once: a query per changed dataset would cost a sixth of a second at 10k changes.
    const acknowledged = await slice(() => new Set(openAcknowledgements(store, orgId).keys()));
    const teamLog = await slice(() => hasTeamLog(store, orgId));
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
        if (transition) transitions.push(transition);
        recordChange(store, orgId, record, transition, {
          isNew,
          acknowledged: acknowledged.has(record.datasetId),
          at,
          teamLog,
        });
      },
      input.signal,
    );
    while (await slice(() => deferred.buildNext()));
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
          written.add(datasetId); // its failures end: the refresh reads it too
          transitions.push({ datasetId, from: before.status, to: null, deliveryId: null });
          forgetDataset(store, orgId, datasetId);
        }
      },
      input.signal,
    );
    for (let after: string | null = null; ;) {
      const from: string | null = after;
      const last: string | null = await slice((): string | null => {
        input.signal?.throwIfAborted();
        return pruneTasksAfter(store, orgId, from, PRUNE_BATCH);
      });
      if (last === null) break;
      after = last;
    }
    await slice(() => markOrgSynced(store, orgId, input.now));
    // Only the datasets written or removed can have changed trouble; in slices of their own (a first sync
    // of a 100k org groups 10k failures).
    await stepsInSlices(
      slice,
      refreshSteps(store, orgId, {
        now: input.now,
        gapMs: input.incidentGapMs ?? DEFAULT_INCIDENT_GAP_MS,
        datasetIds: refreshScope(written),
      }),
    );
    return { transitions, written: input.changes.count, removed };
  });
}
