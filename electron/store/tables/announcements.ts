/**
 * The alerts' memory (docs/architecture.md#notifications, docs/architecture.md#the-on-call-layer): which failed deliveries were already announced (or deliberately
 * silenced, or held for the end of quiet hours), and how often each was reminded. It lives in the store,
 * so a delivery is announced at most once, ever — across re-syncs and restarts. What is not in it yet and
 * is FAILED is what to announce, so a crash between a sync's commit and its announcement loses nothing
 * either. A notification or reminder is written to each covered dataset's timeline in the same
 * transaction as the decision, so the two never disagree.
 */
import type { Store } from '../database';
import { FAILED_DELIVERY } from '../schema/failedDelivery';
import { addTimelineEntry } from './timeline';

/**
 * The name of a FAILED dataset of `f` (below), read only for the rows a question keeps: the datasets
 * index gives the rest, and at 100k reading 6k names to keep none cost half of each question.
 */
const NAME_OF_F = '(SELECT n.name FROM datasets n WHERE n.pk = f.pk)';

/** A dataset whose latest delivery FAILED, and that delivery. */
export interface FailedDataset {
  orgId: string;
  datasetId: string;
  datasetName: string | null;
  deliveryId: string;
}

/**
 * What became of an announced delivery: kept so it is never announced again, and held ones released.
 * 'summarized': told in a summary of a burst or of quiet hours; 'first-sync': told in a source's
 * first-sync summary (what was already failing, so it starts no cause's cool-down); 'held': waiting
 * for quiet hours to end; 'batched': waiting for its cause's cool-down to pass (alerts/coolDown.ts).
 * Both of the last become another outcome when released; 'acknowledged': acknowledged by the time it
 * was released, so not told (someone is on it), and never told later either; 'ruled': kept silent by the
 * org's notification rules (a timeline-only rule, or none that tells of it), never reminded; 'digested':
 * gathered for a digest rule's summary (tables/digests.ts).
 */
export type Outcome =
  | 'notified'
  | 'summarized'
  | 'first-sync'
  | 'snoozed'
  | 'paused'
  | 'held'
  | 'batched'
  | 'acknowledged'
  | 'ruled'
  | 'digested';

/** Reminders a failure gets at most (docs/architecture.md#reminders). */
export const MAX_REMINDERS = 3;

/** The org's FAILED datasets whose failed delivery was never announced, by name. */
export function unannouncedFailures(store: Store, orgId: string): FailedDataset[] {
  return store
    .all(
      // MATERIALIZED: each failed delivery is found once (flattened, SQLite would look it up per use).
      `WITH f AS MATERIALIZED (
         SELECT d.pk, d.dataset_id, ${FAILED_DELIVERY} AS failed, d.name_key
         FROM datasets d WHERE d.org_id = ? AND d.status = 'FAILED')
       SELECT f.dataset_id, ${NAME_OF_F} AS name, f.failed FROM f
       WHERE f.failed IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM announced_deliveries a WHERE a.org_id = ? AND a.delivery_id = f.failed)
       ORDER BY f.name_key, f.dataset_id`,
      [orgId, orgId],
    )
    .map((row) => ({
      orgId,
      datasetId: String(row.dataset_id),
      datasetName: row.name === null ? null : String(row.name),
      deliveryId: String(row.failed),
    }));
}

/** Writes one delivery's outcome, decided at `at` (call inside a transaction). */
export function recordOutcome(store: Store, dataset: FailedDataset, outcome: Outcome, at: string): void {
  store.run(
    `INSERT INTO announced_deliveries (org_id, delivery_id, dataset_id, announced_at, outcome)
     VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (org_id, delivery_id) DO UPDATE SET outcome = excluded.outcome,
       announced_at = excluded.announced_at`,
    [dataset.orgId, dataset.deliveryId, dataset.datasetId, at, outcome],
  );
}

/**
 * Records what became of these deliveries in one transaction (a held one may later become notified or
 * summarized). With `title` (a notification or summary that covers them), each dataset's timeline gets a
 * 'notified' entry with it in the same transaction. Without one it is bookkeeping the API does not
 * serve: no new data revision.
 */
export function remember(
  store: Store,
  datasets: readonly FailedDataset[],
  outcome: Outcome,
  now: Date,
  title: string | null = null,
): void {
  if (datasets.length === 0) return;
  const at = now.toISOString();
  store.transaction(
    () => {
      for (const dataset of datasets) {
        recordOutcome(store, dataset, outcome, at);
        if (title !== null)
          addTimelineEntry(store, {
            orgId: dataset.orgId,
            datasetId: dataset.datasetId,
            at,
            kind: 'notified',
            deliveryId: dataset.deliveryId,
            text: title,
          });
      }
    },
    { dataChange: title !== null },
  );
}

/**
 * Remembers failures the org's notification rules keep silent ('ruled'), each with a 'ruled' timeline
 * entry saying why (`why`: by dataset id), in one transaction.
 */
export function rememberRuled(
  store: Store,
  datasets: readonly FailedDataset[],
  now: Date,
  why: (dataset: FailedDataset) => string,
): void {
  if (datasets.length === 0) return;
  const at = now.toISOString();
  store.transaction(() => {
    for (const dataset of datasets) {
      recordOutcome(store, dataset, 'ruled', at);
      addTimelineEntry(store, {
        orgId: dataset.orgId,
        datasetId: dataset.datasetId,
        at,
        kind: 'ruled',
        deliveryId: dataset.deliveryId,
        text: why(dataset),
      });
    }
  });
}

/** A remembered delivery with when its outcome was decided. */
export interface AnnouncedFailure extends FailedDataset {
  announcedAt: string;
}

const announcedFailure = (row: Record<string, unknown>): AnnouncedFailure => ({
  orgId: String(row.org_id),
  datasetId: String(row.dataset_id),
  datasetName: row.name === null || row.name === undefined ? null : String(row.name),
  deliveryId: String(row.delivery_id),
  announcedAt: String(row.announced_at),
});

/** Failures held during quiet hours, oldest first, with the dataset's current name. */
export function heldFailures(store: Store): FailedDataset[] {
  return waiting(store, 'held').map(({ orgId, datasetId, datasetName, deliveryId }) => ({
    orgId,
    datasetId,
    datasetName,
    deliveryId,
  }));
}

/** Failures batched while their cause cools down (alerts/coolDown.ts), oldest first, across orgs. */
export function batchedFailures(store: Store): AnnouncedFailure[] {
  return waiting(store, 'batched');
}

/** `outcome` is written into the SQL (a constant): the partial index of its rows serves only then. */
function waiting(store: Store, outcome: 'held' | 'batched'): AnnouncedFailure[] {
  return store
    .all(
      `SELECT a.org_id, a.dataset_id, a.delivery_id, a.announced_at, d.name FROM announced_deliveries a
       LEFT JOIN datasets d ON d.org_id = a.org_id AND d.dataset_id = a.dataset_id
       WHERE a.outcome = '${outcome}' ORDER BY a.announced_at, a.org_id, a.dataset_id`,
    )
    .map(announcedFailure);
}

/**
 * The org's deliveries someone was told of (notified, or in a summary other than a first sync's) at or
 * after `since`: what says when each cause was last notified. A notification's time is its row's
 * `announced_at` (a held or batched one's is rewritten when it is released).
 */
export function toldSince(store: Store, orgId: string, since: Date): AnnouncedFailure[] {
  return store
    .all(
      `SELECT a.org_id, a.dataset_id, a.delivery_id, a.announced_at, d.name FROM announced_deliveries a
       LEFT JOIN datasets d ON d.org_id = a.org_id AND d.dataset_id = a.dataset_id
       WHERE a.org_id = ? AND a.announced_at >= ? AND a.outcome IN ('notified', 'summarized')
       ORDER BY a.announced_at`,
      [orgId, since.toISOString()],
    )
    .map(announcedFailure);
}

/**
 * A dataset's supplier as last synced (nulls: none, or the dataset is gone): what names the supplier of
 * a failure that is no longer among the org's causes (it recovered while held or batched).
 */
export function lastSupplier(
  store: Store,
  orgId: string,
  datasetId: string,
): { id: string | null; name: string | null } {
  const [row] = store.all(
    'SELECT supplier_id, supplier_name FROM datasets WHERE org_id = ? AND dataset_id = ?',
    [orgId, datasetId],
  );
  const text = (value: unknown): string | null =>
    value === null || value === undefined ? null : String(value);
  return { id: text(row?.supplier_id), name: text(row?.supplier_name) };
}

/** An announced failure that may be reminded: when it was announced, and how often it was reminded. */
export interface RemindableFailure extends FailedDataset {
  announcedAt: string;
  reminders: number;
  remindedAt: string | null;
}

/**
 * The org's failures someone was told of (notified, or in a summary) or that a pause silenced (reminded
 * once it ends: nobody was told), that are still FAILED with that delivery, have no acknowledgement that
 * holds, and were reminded fewer than MAX_REMINDERS times. Read
 * from the FAILED datasets (an index range), each looked up in the memory by its key.
 */
export function remindableFailures(
  store: Store,
  orgId: string,
  /** Only those last told of (announced, or reminded) at or before this ISO time; default: any. */
  toldBefore = '9999',
): RemindableFailure[] {
  return store
    .all(
      // MATERIALIZED: each failed delivery is found once (flattened, SQLite would look it up per use).
      `WITH f AS MATERIALIZED (
         SELECT d.pk, d.dataset_id, ${FAILED_DELIVERY} AS failed, d.name_key
         FROM datasets d WHERE d.org_id = ?1 AND d.status = 'FAILED')
       SELECT f.dataset_id, ${NAME_OF_F} AS name, f.failed, a.announced_at, a.reminders, a.reminded_at FROM f
       JOIN announced_deliveries a ON a.org_id = ?1 AND a.delivery_id = f.failed
       WHERE a.outcome IN ('notified', 'summarized', 'first-sync', 'paused') AND a.reminders < ?2
         AND coalesce(a.reminded_at, a.announced_at) <= ?3
         AND NOT EXISTS (SELECT 1 FROM acknowledgements k WHERE k.org_id = ?1 AND k.dataset_id = f.dataset_id
           AND k.delivery_id = f.failed AND k.status = 'FAILED' AND k.ended_at IS NULL)
       ORDER BY f.name_key, f.dataset_id`,
      [orgId, MAX_REMINDERS, toldBefore],
    )
    .map((row) => ({
      orgId,
      datasetId: String(row.dataset_id),
      datasetName: row.name === null ? null : String(row.name),
      deliveryId: String(row.failed),
      announcedAt: String(row.announced_at),
      reminders: Number(row.reminders),
      remindedAt: row.reminded_at === null ? null : String(row.reminded_at),
    }));
}

/**
 * Counts one reminder more for each failure and writes a 'reminded' timeline entry with `title` for
 * each dataset, in one transaction.
 */
export function rememberReminder(
  store: Store,
  datasets: readonly FailedDataset[],
  now: Date,
  title: string,
): void {
  if (datasets.length === 0) return;
  const at = now.toISOString();
  store.transaction(() => {
    for (const dataset of datasets) {
      store.run(
        `UPDATE announced_deliveries SET reminders = reminders + 1, reminded_at = ?
         WHERE org_id = ? AND delivery_id = ?`,
        [at, dataset.orgId, dataset.deliveryId],
      );
      addTimelineEntry(store, {
        orgId: dataset.orgId,
        datasetId: dataset.datasetId,
        at,
        kind: 'reminded',
        deliveryId: dataset.deliveryId,
        text: title,
      });
    }
  });
}
