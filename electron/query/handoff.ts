/**
 * The shift handoff's reads (docs/architecture.md#handoff): the timeline's status entries and acknowledgement notes of
 * a window, each dataset's status when it began, and the sync outages that overlap it. The on-call
 * layer (electron/knowledge/handoff.ts) decides the report from them.
 */
import type { HandoffNote, HandoffOutage } from '../../shared/handoff';
import type { Store } from '../store/database';
import { HANDOFF_CHANGE, HANDOFF_NOTE } from '../store/schema/lookupIndexes';

/** A status entry of the timeline. */
export interface StatusEntry {
  datasetId: string;
  /** Epoch ms. */
  at: number;
  from: string | null;
  to: string | null;
}

export interface HandoffWindow {
  /**
   * Of the datasets with status entries in the window, those FAILED or MISSING when it began (their
   * newest status entry before it).
   */
  statusAtStart: Map<string, string | null>;
  /** Status entries within the window, oldest first. */
  entries: StatusEntry[];
  /** Acknowledgement notes within the window, oldest first. */
  notes: (HandoffNote & { datasetId: string })[];
  /** Outages of the org that overlap the window, by loss time. */
  outages: HandoffOutage[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The org's timeline and outages of the window [since, now] (epoch ms). */
export function readHandoffWindow(store: Store, orgId: string, since: number, now: number): HandoffWindow {
  // Entries from no status into none of trouble (a dataset first seen healthy) are left out: nothing
  // before them can make a recovery, and a first sync writes one per dataset.
  const entries = store
    .all(
      `SELECT dataset_id, at_key, from_status, to_status FROM timeline
       WHERE org_id = ? AND ${HANDOFF_CHANGE} AND at_key >= ? AND at_key <= ? ORDER BY at_key, id`,
      [orgId, since, now],
    )
    .map((row) => ({
      datasetId: String(row.dataset_id),
      at: Number(row.at_key),
      from: row.from_status == null ? null : String(row.from_status),
      to: row.to_status == null ? null : String(row.to_status),
    }));
  // What the datasets with entries in the window were when it began (a recovery starts from it): one
  // seek each. Those without entries cannot have recovered by the timeline's word; reading every
  // troubled entry before the window took 0.6 s at 100k datasets. Nor can one whose first entry in the
  // window comes from no status: it was new to the mirror then, and its entries before, if any, ended
  // in none. (One first seen healthy has its later entries read, if any: a seek that finds nothing.)
  const statusAtStart = new Map<string, string | null>();
  const firstFrom = new Map<string, string | null>();
  for (const entry of entries)
    if (!firstFrom.has(entry.datasetId)) firstFrom.set(entry.datasetId, entry.from);
  const changed = [...firstFrom].filter(([, from]) => from !== null).map(([datasetId]) => datasetId);
  if (changed.length > 0)
    for (const row of store.all(
      `SELECT j.value AS dataset_id, (
         SELECT u.to_status FROM timeline u WHERE u.org_id = ?1 AND u.dataset_id = j.value AND u.kind = 'status'
           AND u.at_key < ?2 ORDER BY u.at_key DESC, u.id DESC LIMIT 1) AS to_status
       FROM json_each(?3) j`,
      [orgId, since, JSON.stringify(changed)],
    ))
      if (row.to_status === 'FAILED' || row.to_status === 'MISSING')
        statusAtStart.set(String(row.dataset_id), String(row.to_status));
  const notes = store
    .all(
      `SELECT dataset_id, at, by_name, text FROM timeline
       WHERE org_id = ? AND ${HANDOFF_NOTE} AND at_key >= ? AND at_key <= ? ORDER BY at_key, id`,
      [orgId, since, now],
    )
    .map((row) => ({
      datasetId: String(row.dataset_id),
      at: new Date(String(row.at)).toISOString(),
      by: row.by_name == null ? null : String(row.by_name),
      text: String(row.text),
    }));
  const outages = store
    .all(
      `SELECT source_id, source_name, lost_at, regained_at, last_success_at, imported FROM sync_outages
       WHERE org_id = ? AND lost_at <= ? AND (regained_at IS NULL OR regained_at >= ?)
       ORDER BY lost_at, source_id`,
      [orgId, iso(now), iso(since)],
    )
    .map((row): HandoffOutage => ({
      sourceId: String(row.source_id),
      sourceName: String(row.source_name),
      lostAt: String(row.lost_at),
      regainedAt: row.regained_at == null ? null : String(row.regained_at),
      lastSuccessAt: row.last_success_at == null ? null : String(row.last_success_at),
      imported: Number(row.imported) === 1,
    }));
  return { statusAtStart, entries, notes, outages };
}

/** A dataset not troubled now, and when its last trouble ended, as its stored history shows. */
export interface HistoryRecovery {
  datasetId: string;
  /** The last troubled status (FAILED or MISSING). */
  was: string;
  /** When it ended: the next settled delivery's time, never after the mirror learned of it. */
  recoveredAt: string;
}

/**
 * When the mirror learned that each of these datasets recovered (epoch ms): the first timeline entry
 * leaving trouble after the last one entering it. A dataset with none is absent. A seek or two per
 * dataset: asked only for the recoveries that may fall in a handoff's window (knowledge/recoveries.ts).
 */
export function readRecoveriesLearned(
  store: Store,
  orgId: string,
  datasetIds: readonly string[],
): Map<string, number> {
  const learned = new Map<string, number>();
  if (datasetIds.length === 0) return learned;
  for (const row of store.all(
    `SELECT j.value AS dataset_id,
       (SELECT min(l.at_key) FROM timeline l WHERE l.org_id = ?1 AND l.dataset_id = j.value
          AND l.kind = 'status' AND l.from_status IN ('FAILED', 'MISSING')
          AND coalesce(l.to_status, '') NOT IN ('FAILED', 'MISSING')
          AND l.at_key >= coalesce((SELECT max(m.at_key) FROM timeline m
            WHERE m.org_id = ?1 AND m.dataset_id = j.value AND m.kind = 'status'
              AND m.to_status IN ('FAILED', 'MISSING')), -9e15)) AS learned
     FROM json_each(?2) j`,
    [orgId, JSON.stringify(datasetIds)],
  ))
    if (row.learned != null) learned.set(String(row.dataset_id), Number(row.learned));
  return learned;
}
