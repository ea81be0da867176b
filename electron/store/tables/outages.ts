/**
 * Sync outages (docs/architecture.md#notifications, docs/architecture.md#the-on-call-layer): a source's data turned stale or its sync failed (lost contact), and
 * when it synced successfully again (regained). One row per outage: while a source has an open one its
 * loss is not announced again, also after a restart; the dataset timeline reads them (store/tables/timeline.ts).
 * Beside them, in `meta`, the losses whose notice waits for the end of quiet hours.
 */
import type { Row, Store } from '../database';

export interface Outage {
  id: number;
  orgId: string;
  sourceId: string;
  sourceName: string;
  /** The source's last successful sync when contact was lost (null: never). */
  lastSuccessAt: string | null;
  lostAt: string;
  regainedAt: string | null;
}

const COLUMNS = 'id, org_id, source_id, source_name, last_success_at, lost_at, regained_at';

const outageOf = (row: Row): Outage => ({
  id: Number(row.id),
  orgId: String(row.org_id),
  sourceId: String(row.source_id),
  sourceName: String(row.source_name),
  lastSuccessAt: row.last_success_at == null ? null : String(row.last_success_at),
  lostAt: String(row.lost_at),
  regainedAt: row.regained_at == null ? null : String(row.regained_at),
});

/**
 * The source's outage that has not ended, if any. Imported outages (another machine's, from a snapshot)
 * are never this mirror's: source ids are names, and would collide.
 */
export function openOutage(store: Store, orgId: string, sourceId: string): Outage | null {
  const row = store.get(
    `SELECT ${COLUMNS} FROM sync_outages WHERE org_id = ? AND source_id = ? AND regained_at IS NULL
       AND imported = 0 ORDER BY id DESC LIMIT 1`,
    [orgId, sourceId],
  );
  return row ? outageOf(row) : null;
}

/** Every outage that has not ended, oldest first. */
export function openOutages(store: Store): Outage[] {
  return store
    .all(
      `SELECT ${COLUMNS} FROM sync_outages WHERE regained_at IS NULL AND imported = 0 ORDER BY lost_at, id`,
    )
    .map(outageOf);
}

/**
 * Records that contact with a source was lost (shown on its org's dataset timelines: a data change);
 * `held`: its notice waits for the end of quiet hours (`heldOutages`).
 */
export function recordLoss(store: Store, outage: Omit<Outage, 'id' | 'regainedAt'>, held = false): Outage {
  return store.transaction(() => {
    store.run(
      `INSERT INTO sync_outages (org_id, source_id, source_name, last_success_at, lost_at) VALUES (?, ?, ?, ?, ?)`,
      [outage.orgId, outage.sourceId, outage.sourceName, outage.lastSuccessAt, outage.lostAt],
    );
    const id = Number(store.value<number>('SELECT last_insert_rowid()'));
    if (held) writeHeld(store, [...heldIds(store), id]);
    return { ...outage, id, regainedAt: null };
  });
}

/** Records that the outage ended. */
export function recordRegain(store: Store, id: number, at: string): void {
  store.transaction(() =>
    store.run('UPDATE sync_outages SET regained_at = ? WHERE id = ? AND regained_at IS NULL', [at, id]),
  );
}

const HELD_KEY = 'alerts.heldOutages';

function heldIds(store: Store): number[] {
  const text = store.value<string>('SELECT value FROM meta WHERE key = ?', [HELD_KEY]);
  if (text === undefined) return [];
  try {
    const ids: unknown = JSON.parse(text);
    return Array.isArray(ids) ? ids.filter((id): id is number => Number.isInteger(id)) : [];
  } catch {
    return [];
  }
}

function writeHeld(store: Store, ids: readonly number[]): void {
  store.run(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    [HELD_KEY, JSON.stringify(ids)],
  );
}

/** Losses whose notice waits for the end of quiet hours, oldest first (ended ones too: see `regainedAt`). */
export function heldOutages(store: Store): Outage[] {
  const ids = heldIds(store);
  if (ids.length === 0) return [];
  return store
    .all(
      `SELECT ${COLUMNS} FROM sync_outages WHERE id IN (${ids.map(() => '?').join(',')}) ORDER BY lost_at, id`,
      ids,
    )
    .map(outageOf);
}

/** Forgets the held losses (released or dropped). */
export function clearHeldOutages(store: Store): void {
  store.transaction(() => store.run('DELETE FROM meta WHERE key = ?', [HELD_KEY]), { dataChange: false });
}
