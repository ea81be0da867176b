/**
 * Acknowledgements (docs/architecture.md#acknowledgements): someone owns a failure. One row per (dataset, failed delivery): it
 * holds while the dataset still has that status with that delivery, and ends by itself when it delivers
 * again or fails with another delivery (`endStaleAcknowledgements`, run in the sync's commit) — that
 * failure is new and is announced. Acknowledging a cause acknowledges each of its failures of the
 * moment; a failure that joins the cause later is new and is not covered. Each change is also a
 * timeline entry, in the same transaction.
 */
import type { AcknowledgementView } from '../../../shared/causes';
import type { Row, Store } from '../database';
import { PROBLEM_DELIVERY } from '../schema/failedDelivery';
import { addTimelineEntry } from './timeline';

/** A new acknowledgement: one that holds (it has not ended). */
export type Acknowledge = Omit<AcknowledgementView, 'endedAt' | 'endReason'>;

const viewOf = (row: Row): AcknowledgementView => ({
  orgId: String(row.org_id),
  datasetId: String(row.dataset_id),
  deliveryId: String(row.delivery_id),
  status: String(row.status),
  causeId: row.cause_id === null ? null : String(row.cause_id),
  note: row.note === null ? null : String(row.note),
  by: String(row.by_name),
  at: String(row.at),
  endedAt: row.ended_at === null ? null : String(row.ended_at),
  endReason: row.end_reason === null ? null : String(row.end_reason),
});

const COLUMNS =
  'a.org_id, a.dataset_id, a.delivery_id, a.status, a.cause_id, a.note, a.by_name, a.at, a.ended_at, a.end_reason';

/** Records (or, for the same failure, updates the note of) an acknowledgement. Call inside a transaction. */
export function acknowledge(store: Store, ack: Acknowledge): AcknowledgementView {
  // One holds per dataset: an earlier failure's (its end not yet seen by a sync) gives way.
  store.run(
    `UPDATE acknowledgements SET ended_at = ?, end_reason = 'another failure was acknowledged'
     WHERE org_id = ? AND dataset_id = ? AND ended_at IS NULL AND delivery_id <> ?`,
    [ack.at, ack.orgId, ack.datasetId, ack.deliveryId],
  );
  store.run(
    `INSERT INTO acknowledgements (org_id, dataset_id, delivery_id, status, cause_id, note, by_name, at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (org_id, dataset_id, delivery_id) DO UPDATE SET status = excluded.status,
       cause_id = excluded.cause_id, note = excluded.note, by_name = excluded.by_name, at = excluded.at,
       ended_at = NULL, end_reason = NULL`,
    [ack.orgId, ack.datasetId, ack.deliveryId, ack.status, ack.causeId, ack.note, ack.by, ack.at],
  );
  addTimelineEntry(store, {
    orgId: ack.orgId,
    datasetId: ack.datasetId,
    at: ack.at,
    kind: 'acknowledged',
    deliveryId: ack.deliveryId,
    to: ack.status,
    text: ack.note,
    by: ack.by,
  });
  return { ...ack, endedAt: null, endReason: null };
}

/** Withdraws the dataset's open acknowledgement; false when it had none. Call inside a transaction. */
export function unacknowledge(
  store: Store,
  orgId: string,
  datasetId: string,
  by: string,
  at: string,
): boolean {
  const open = openAcknowledgement(store, orgId, datasetId);
  if (!open) return false;
  store.run('DELETE FROM acknowledgements WHERE org_id = ? AND dataset_id = ? AND delivery_id = ?', [
    orgId,
    datasetId,
    open.deliveryId,
  ]);
  addTimelineEntry(store, { orgId, datasetId, at, kind: 'unacknowledged', deliveryId: open.deliveryId, by });
  return true;
}

/** The dataset's acknowledgement that holds now, if any. */
export function openAcknowledgement(
  store: Store,
  orgId: string,
  datasetId: string,
): AcknowledgementView | null {
  const row = store.get(
    `SELECT ${COLUMNS} FROM acknowledgements a WHERE a.org_id = ? AND a.dataset_id = ? AND a.ended_at IS NULL`,
    [orgId, datasetId],
  );
  return row ? viewOf(row) : null;
}

/** The org's acknowledgements that hold now, by dataset id. */
export function openAcknowledgements(store: Store, orgId: string): Map<string, AcknowledgementView> {
  const byDataset = new Map<string, AcknowledgementView>();
  for (const row of store.all(
    `SELECT ${COLUMNS} FROM acknowledgements a WHERE a.org_id = ? AND a.ended_at IS NULL`,
    [orgId],
  ))
    byDataset.set(String(row.dataset_id), viewOf(row));
  return byDataset;
}

/** The org's acknowledgements, open ones first, then ended ones newest first (what `export` writes too). */
export function listAcknowledgements(
  store: Store,
  orgId: string,
  includeEnded: boolean,
): AcknowledgementView[] {
  return store
    .all(
      `SELECT ${COLUMNS} FROM acknowledgements a WHERE a.org_id = ? ${includeEnded ? '' : 'AND a.ended_at IS NULL'}
       ORDER BY a.ended_at IS NOT NULL, a.at DESC, a.dataset_id`,
      [orgId],
    )
    .map(viewOf);
}

/** Why an acknowledgement ended, from the dataset's new status. */
export function endReason(was: string, to: string | null, deliveryId: string | null): string {
  if (to === null) return 'the dataset was removed';
  const delivery = deliveryId ? ` (delivery ${deliveryId})` : '';
  if (to === 'FAILED') return was === 'FAILED' ? `failed again${delivery}` : `failed${delivery}`;
  if (to === 'MISSING') return 'missing';
  return `delivered (${to})`;
}

/**
 * Ends the dataset's open acknowledgement when its status or problem delivery moved on (after the
 * sync wrote it). Call inside the transaction that changed the dataset.
 */
export function endStaleAcknowledgements(
  store: Store,
  orgId: string,
  datasetId: string,
  to: string | null,
  deliveryId: string | null,
  at: string,
): void {
  const open = openAcknowledgement(store, orgId, datasetId);
  if (!open) return;
  const holds = store.value<number>(
    `SELECT 1 FROM datasets d WHERE d.org_id = ? AND d.dataset_id = ? AND d.status = ? AND ${PROBLEM_DELIVERY} = ?`,
    [orgId, datasetId, open.status, open.deliveryId],
  );
  if (holds !== undefined) return;
  const reason = endReason(open.status, to, deliveryId);
  store.run(
    'UPDATE acknowledgements SET ended_at = ?, end_reason = ? WHERE org_id = ? AND dataset_id = ? AND delivery_id = ?',
    [at, reason, orgId, datasetId, open.deliveryId],
  );
  addTimelineEntry(store, {
    orgId,
    datasetId,
    at,
    kind: 'acknowledgement-ended',
    deliveryId: open.deliveryId,
    text: reason,
  });
}
