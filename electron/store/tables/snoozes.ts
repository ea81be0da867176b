/**
 * Snoozed datasets (docs/architecture.md#snoozes): no notification for them until the snooze ends: after 1 h or 4 h,
 * when the next delivery arrives (the latest delivery id changes), or when the dataset is HEALTHY again.
 * The alerts decide what an active snooze silences; this keeps the list.
 */
import type { SnoozeKind, SnoozeView } from '../../../shared/views';
import type { Store } from '../database';

const HOURS: Partial<Record<SnoozeKind, number>> = { '1h': 1, '4h': 4 };

export class SnoozeError extends Error {}

function toView(row: Record<string, unknown>): SnoozeView {
  const text = (value: unknown): string | null =>
    value === null || value === undefined ? null : String(value);
  return {
    orgId: String(row.org_id),
    datasetId: String(row.dataset_id),
    datasetName: text(row.name),
    kind: String(row.kind) as SnoozeKind,
    until: text(row.until),
    deliveryId: text(row.delivery_id),
    createdAt: String(row.created_at),
  };
}

const SELECT = `SELECT s.org_id, s.dataset_id, d.name, s.kind, s.until, s.delivery_id, s.created_at
  FROM snoozes s LEFT JOIN datasets d ON d.org_id = s.org_id AND d.dataset_id = s.dataset_id`;

/** The org's snoozes that are still in force at `now`, newest first. */
export function listSnoozes(store: Store, orgId: string, now: Date): SnoozeView[] {
  return store
    .all(`${SELECT} WHERE s.org_id = ? ORDER BY s.created_at DESC, s.dataset_id`, [orgId])
    .map(toView)
    .filter((snooze) => isActive(store, snooze, now));
}

/** Whether the snooze still holds: its time has not passed, no newer delivery, not yet healthy. */
export function isActive(store: Store, snooze: SnoozeView, now: Date): boolean {
  if (snooze.until !== null) return Date.parse(snooze.until) > now.getTime();
  const row = store.get('SELECT status, delivery_id FROM datasets WHERE org_id = ? AND dataset_id = ?', [
    snooze.orgId,
    snooze.datasetId,
  ]);
  if (!row) return false;
  if (snooze.kind === 'next-delivery') return row.delivery_id === snooze.deliveryId;
  return row.status !== 'HEALTHY';
}

/**
 * What a snooze of `kind` made at `now` holds: when it ends (1 h, 4 h), or the delivery it waits past
 * (next-delivery). Throws SnoozeError for a dataset the org does not have.
 */
export function snoozeTerms(
  store: Store,
  orgId: string,
  datasetId: string,
  kind: SnoozeKind,
  now: Date,
): { until: string | null; deliveryId: string | null } {
  const dataset = store.get('SELECT delivery_id FROM datasets WHERE org_id = ? AND dataset_id = ?', [
    orgId,
    datasetId,
  ]);
  if (!dataset) throw new SnoozeError(`org '${orgId}' has no dataset '${datasetId}'`);
  const hours = HOURS[kind];
  return {
    until: hours === undefined ? null : new Date(now.getTime() + hours * 3_600_000).toISOString(),
    deliveryId: kind === 'next-delivery' ? ((dataset.delivery_id as string | null) ?? null) : null,
  };
}

/** The dataset's snooze as stored (whether or not it is still in force), if it has one. */
export function storedSnooze(store: Store, orgId: string, datasetId: string): SnoozeView | null {
  const row = store.get(`${SELECT} WHERE s.org_id = ? AND s.dataset_id = ?`, [orgId, datasetId]);
  return row === undefined ? null : toView(row);
}

/** Snoozes the dataset (replacing any snooze it had). */
export function setSnooze(
  store: Store,
  orgId: string,
  datasetId: string,
  kind: SnoozeKind,
  now: Date,
): SnoozeView {
  const { until, deliveryId } = snoozeTerms(store, orgId, datasetId, kind, now);
  store.transaction(
    () =>
      store.run(
        `INSERT INTO snoozes (org_id, dataset_id, kind, until, delivery_id, created_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (org_id, dataset_id) DO UPDATE SET kind = excluded.kind, until = excluded.until,
           delivery_id = excluded.delivery_id, created_at = excluded.created_at`,
        [orgId, datasetId, kind, until, deliveryId, now.toISOString()],
      ),
    { dataChange: false },
  );
  return storedSnooze(store, orgId, datasetId)!;
}

export function clearSnooze(store: Store, orgId: string, datasetId: string): boolean {
  return store.transaction(
    () => store.run('DELETE FROM snoozes WHERE org_id = ? AND dataset_id = ?', [orgId, datasetId]) > 0,
    { dataChange: false },
  );
}
