/**
 * The stored history a replay of the rules runs over (docs/decisions.md "Replaying the rules"): the
 * org's status changes as the timeline recorded them, its acknowledgements with their times, and its
 * own outages of contact. Read in index order, one query each.
 */
import type { Store } from '../store/database';
import { rowsForIds } from './idSlices';
import { HANDOFF_CHANGE } from '../store/schema/lookupIndexes';

export interface StatusChange {
  datasetId: string;
  at: string;
  from: string | null;
  to: string | null;
  deliveryId: string | null;
}

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

/** The org's status changes in [from, to), oldest first (served by timeline_handoff_changes). */
export function statusChanges(store: Store, orgId: string, from: Date, to: Date): StatusChange[] {
  return store
    .all(
      `SELECT dataset_id, at, from_status, to_status, delivery_id FROM timeline
       WHERE org_id = ? AND ${HANDOFF_CHANGE} AND at_key >= ? AND at_key < ? ORDER BY at_key, id`,
      [orgId, from.getTime(), to.getTime()],
    )
    .map((row) => ({
      datasetId: String(row.dataset_id),
      at: String(row.at),
      from: text(row.from_status),
      to: text(row.to_status),
      deliveryId: text(row.delivery_id),
    }));
}

/**
 * The failed deliveries the org's timeline saw before `before`: live judged each of them once and
 * never again, so a replay that starts later must not judge them afresh (served by
 * timeline_handoff_changes).
 */
export function failuresBefore(store: Store, orgId: string, before: Date): string[] {
  return store
    .all(
      `SELECT DISTINCT delivery_id FROM timeline
       WHERE org_id = ? AND ${HANDOFF_CHANGE} AND at_key < ? AND to_status = 'FAILED' AND delivery_id IS NOT NULL`,
      [orgId, before.getTime()],
    )
    .map((row) => String(row.delivery_id));
}

/**
 * When the org's history starts: its earliest status entry (its first sync's "first seen" ones, a
 * HEALTHY one included) or timeline cut, null when it has neither. Once per replay.
 */
export function historyStart(store: Store, orgId: string): Date | null {
  // A timeline cut to its last deliveries starts at its cut, even with no change kept since.
  const first = store.value(
    `SELECT min(k) FROM (SELECT min(at_key) AS k FROM timeline WHERE org_id = ?1 AND kind = 'status'
       UNION ALL SELECT min(cut_key) FROM timeline_cuts WHERE org_id = ?1)`,
    [orgId],
  );
  return first === null || first === undefined ? null : new Date(Number(first));
}

/** An acknowledgement as it stood: of which problem, from when, until when (null: still holds). */
export interface AcknowledgedSpan {
  datasetId: string;
  deliveryId: string;
  status: string;
  from: number;
  until: number | null;
}

/** The org's acknowledgements, with their times (one withdrawn is gone from the store, and from here). */
export function acknowledgedSpans(store: Store, orgId: string): AcknowledgedSpan[] {
  return store
    .all('SELECT dataset_id, delivery_id, status, at, ended_at FROM acknowledgements WHERE org_id = ?', [
      orgId,
    ])
    .map((row) => ({
      datasetId: String(row.dataset_id),
      deliveryId: String(row.delivery_id),
      status: String(row.status),
      from: Date.parse(String(row.at)),
      until: row.ended_at === null || row.ended_at === undefined ? null : Date.parse(String(row.ended_at)),
    }));
}

/** The org's own outages of contact that began in [from, to) (another machine's, imported, are not). */
export function lostContacts(
  store: Store,
  orgId: string,
  from: Date,
  to: Date,
): { orgId: string; sourceId: string; sourceName: string; lostAt: string }[] {
  return store
    .all(
      `SELECT source_id, source_name, lost_at FROM sync_outages WHERE org_id = ? AND imported = 0
       ORDER BY lost_at, id`,
      [orgId],
    )
    .filter((row) => {
      const at = Date.parse(String(row.lost_at));
      return at >= from.getTime() && at < to.getTime();
    })
    .map((row) => ({
      orgId,
      sourceId: String(row.source_id),
      sourceName: String(row.source_name),
      lostAt: String(row.lost_at),
    }));
}

/** A delivery's deadline and, once it came, its delivery time (epoch milliseconds). */
export interface DeliveryTimes {
  deadline: number;
  deliveredAt: number | null;
}

/** The deadline and delivery time of each of these deliveries of the org (absent: no deadline known). */
export function deliveryTimes(
  store: Store,
  orgId: string,
  deliveryIds: readonly string[],
): Map<string, DeliveryTimes> {
  const times = new Map<string, DeliveryTimes>();
  for (const row of rowsForIds(
    store,
    orgId,
    deliveryIds,
    // Events first (CROSS JOIN keeps the order): one events_by_delivery lookup per id, where the
    // planner would otherwise walk every dataset of the org for each.
    (ids) => `SELECT e.delivery_id, e.deadline, e.delivered_at
      FROM events e CROSS JOIN datasets d ON d.pk = e.dataset_pk
      WHERE d.org_id = ? AND e.delivery_id IN (${ids})`,
  )) {
    const deadline = Date.parse(String(row.deadline));
    const delivered = row.delivered_at === null ? NaN : Date.parse(String(row.delivered_at));
    if (Number.isFinite(deadline))
      times.set(String(row.delivery_id), {
        deadline,
        deliveredAt: Number.isFinite(delivered) ? delivered : null,
      });
  }
  return times;
}

/**
 * The first failed task of each of these deliveries of the org, as stored beside its tasks
 * (delivery_tasks' fail_* columns): absent when its tasks are not stored or none failed.
 */
export function storedFailures(
  store: Store,
  orgId: string,
  deliveryIds: readonly string[],
): Map<string, { stage: string; shortCode: string | null; message: string | null }> {
  const failures = new Map<string, { stage: string; shortCode: string | null; message: string | null }>();
  for (const row of rowsForIds(
    store,
    orgId,
    deliveryIds,
    (ids) => `SELECT delivery_id, fail_stage, fail_code, fail_message FROM delivery_tasks
      WHERE org_id = ? AND fail_stage IS NOT NULL AND delivery_id IN (${ids})`,
  ))
    failures.set(String(row.delivery_id), {
      stage: String(row.fail_stage),
      shortCode: text(row.fail_code),
      message: text(row.fail_message),
    });
  return failures;
}

/** When this machine first held the org: its first sync, or the import (or demo) that brought it. */
export function mirroredSince(store: Store, orgId: string): Date | null {
  const at = store.value('SELECT created_at FROM orgs WHERE id = ?', [orgId]);
  return at === null || at === undefined ? null : new Date(String(at));
}

/**
 * The datasets whose timeline was cut after `after` (timeline_cuts): those that keep only their last
 * deliveries, and with them only the changes since the oldest (docs/architecture.md "Retention"). Their
 * count, and the latest cut.
 */
export function cutHistories(
  store: Store,
  orgId: string,
  after: Date,
): { count: number; latest: Date | null } {
  const row = store.get(
    `SELECT count(*) AS count, max(c.cut_key) AS latest FROM timeline_cuts c
     JOIN datasets d ON d.org_id = c.org_id AND d.dataset_id = c.dataset_id
     WHERE c.org_id = ? AND c.cut_key > ?`,
    [orgId, after.getTime()],
  );
  const count = Number(row?.count ?? 0);
  return { count, latest: count === 0 ? null : new Date(Number(row?.latest)) };
}
