/**
 * The per-dataset timeline (docs/architecture.md#timeline): what the mirror saw and did — status transitions, the
 * notifications and reminders raised, acknowledgements and their notes, and (read from sync_outages)
 * the times a source lost contact. Written in the same transaction as what it records, so a crash
 * never keeps one without the other; kept within retention (`pruneTimeline`).
 */
import type { TimelineEntry, TimelineKind } from '../../../shared/timeline';
import type { Store } from '../database';

export type { TimelineEntry, TimelineKind };

export interface NewTimelineEntry extends Partial<Omit<TimelineEntry, 'at' | 'kind'>> {
  orgId: string;
  datasetId: string;
  at: string;
  kind: TimelineKind;
}

/** Adds an entry; call inside the transaction that makes the change it records. */
export function addTimelineEntry(store: Store, entry: NewTimelineEntry): void {
  store.run(
    `INSERT INTO timeline (org_id, dataset_id, at, at_key, kind, from_status, to_status, delivery_id, text, by_name)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      entry.orgId,
      entry.datasetId,
      entry.at,
      Date.parse(entry.at),
      entry.kind,
      entry.from ?? null,
      entry.to ?? null,
      entry.deliveryId ?? null,
      entry.text ?? null,
      entry.by ?? null,
    ],
  );
}

/**
 * Drops a dataset's entries older than its oldest retained delivery (docs/architecture.md#retention): what
 * the timeline says stays explainable by the history kept beside it. Where it cut is remembered
 * (timeline_cuts): a replay of the rules says so rather than show the dropped changes as quiet.
 */
export function pruneTimeline(store: Store, orgId: string, datasetId: string): void {
  const oldest = store.value(
    `SELECT min(e.deadline_key) FROM events e JOIN datasets d ON d.pk = e.dataset_pk
     WHERE d.org_id = ? AND d.dataset_id = ? AND e.deadline_key > -9e15`,
    [orgId, datasetId],
  );
  if (oldest === null || oldest === undefined) return;
  const dropped = store.run('DELETE FROM timeline WHERE org_id = ? AND dataset_id = ? AND at_key < ?', [
    orgId,
    datasetId,
    oldest,
  ]);
  if (dropped > 0)
    store.run(
      `INSERT INTO timeline_cuts (org_id, dataset_id, cut_key) VALUES (?, ?, ?)
       ON CONFLICT (org_id, dataset_id) DO UPDATE SET cut_key = max(cut_key, excluded.cut_key)`,
      [orgId, datasetId, oldest],
    );
}

/** Forgets a dataset the remote removed: its timeline and acknowledgements go with it. */
export function forgetDataset(store: Store, orgId: string, datasetId: string): void {
  store.run('DELETE FROM timeline WHERE org_id = ? AND dataset_id = ?', [orgId, datasetId]);
  store.run('DELETE FROM acknowledgements WHERE org_id = ? AND dataset_id = ?', [orgId, datasetId]);
  store.run('DELETE FROM timeline_cuts WHERE org_id = ? AND dataset_id = ?', [orgId, datasetId]);
}

const entryOf = (row: Record<string, unknown>): TimelineEntry => ({
  at: String(row.at),
  kind: String(row.kind) as TimelineKind,
  from: row.from_status == null ? null : String(row.from_status),
  to: row.to_status == null ? null : String(row.to_status),
  deliveryId: row.delivery_id == null ? null : String(row.delivery_id),
  text: row.text == null ? null : String(row.text),
  by: row.by_name == null ? null : String(row.by_name),
});

/**
 * A dataset's timeline, newest first, with the org's sync outages that overlap it (from its first
 * entry on), at most `limit` entries.
 */
export function datasetTimeline(
  store: Store,
  orgId: string,
  datasetId: string,
  limit: number,
): TimelineEntry[] {
  const entries = store
    .all(
      `SELECT at, kind, from_status, to_status, delivery_id, text, by_name FROM timeline
       WHERE org_id = ? AND dataset_id = ? ORDER BY at_key DESC, id DESC LIMIT ?`,
      [orgId, datasetId, limit],
    )
    .map(entryOf);
  const oldest = entries.at(-1)?.at ?? null;
  const outages = store
    .all(
      `SELECT lost_at, regained_at, source_name, last_success_at, imported FROM sync_outages
       WHERE org_id = ? AND (regained_at IS NULL OR regained_at >= ?) ORDER BY lost_at DESC LIMIT ?`,
      [orgId, oldest ?? '', limit],
    )
    .map((row): TimelineEntry => ({
      at: String(row.lost_at),
      kind: 'outage',
      from: null,
      to: null,
      deliveryId: null,
      text:
        `Lost contact with ${String(row.source_name)}` +
        (row.regained_at != null
          ? `; regained at ${String(row.regained_at)}`
          : row.imported
            ? ' (still out when the snapshot was exported)'
            : ' (not regained yet)'),
      by: null,
    }));
  return [...entries, ...outages].sort((a, b) => Date.parse(b.at) - Date.parse(a.at)).slice(0, limit);
}

/** Every timeline entry of an org, by dataset then oldest first: what `export` writes. */
export function orgTimeline(store: Store, orgId: string): Map<string, TimelineEntry[]> {
  const byDataset = new Map<string, TimelineEntry[]>();
  for (const row of store.all(
    `SELECT dataset_id, at, kind, from_status, to_status, delivery_id, text, by_name FROM timeline
     WHERE org_id = ? ORDER BY dataset_id, at_key, id`,
    [orgId],
  )) {
    const id = String(row.dataset_id);
    let list = byDataset.get(id);
    if (!list) byDataset.set(id, (list = []));
    list.push(entryOf(row));
  }
  return byDataset;
}
