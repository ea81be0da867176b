/**
 * The routes' outbox (docs/decisions.md "Routes: at most once (issue 27)"): the SQL of route delivery.
 * Each change of state is its own small transaction, and moves a row only from the state it expects, so
 * two callers can never both think they own an attempt. electron/routes/ decides when each is called.
 */
import type { Store } from '../database';
import type { Row } from '../schema/row';

export type OutboxState = 'pending' | 'sending' | 'sent' | 'dead';

export interface OutboxRow {
  id: number;
  orgId: string;
  notificationId: string;
  routeId: string;
  /** The notification as JSON text. */
  payload: string;
  state: OutboxState;
  /** Attempts started (an attempt is counted when it is marked `sending`). */
  attempts: number;
  /** When a `pending` row is due; null otherwise. */
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One notification for one route, as the caller enqueues it. */
export interface OutboxEntry {
  orgId: string;
  notificationId: string;
  routeId: string;
  payload: string;
}

/** What an attempt came to (`settleOutboxRow`). */
export type OutboxOutcome =
  | { state: 'sent' }
  | { state: 'pending'; nextAttemptAt: Date; error: string }
  | { state: 'dead'; error: string };

const COLUMNS = `id, org_id, notification_id, route_id, payload, state, attempts, next_attempt_at, last_error,
  created_at, updated_at`;

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

function outboxRowOf(row: Row): OutboxRow {
  return {
    id: Number(row.id),
    orgId: String(row.org_id),
    notificationId: String(row.notification_id),
    routeId: String(row.route_id),
    payload: String(row.payload),
    state: String(row.state) as OutboxState,
    attempts: Number(row.attempts),
    nextAttemptAt: text(row.next_attempt_at),
    lastError: text(row.last_error),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
}

/** Bookkeeping of the alerts' side: the API's pages and ETags stay. */
const BOOKKEEPING = { dataChange: false } as const;

/**
 * Adds `entries`, due now; an entry whose notification and route are there already is left as it is.
 * Joins the caller's transaction when there is one (the commit that decided the notification). Returns
 * how many rows were added.
 */
export function enqueueOutbox(store: Store, entries: readonly OutboxEntry[], now: Date): number {
  if (entries.length === 0) return 0;
  const at = now.toISOString();
  return store.transaction(() => {
    let added = 0;
    for (const entry of entries)
      added += store.run(
        `INSERT INTO route_outbox (org_id, notification_id, route_id, payload, state, attempts,
           next_attempt_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?)
         ON CONFLICT (org_id, notification_id, route_id) DO NOTHING`,
        [entry.orgId, entry.notificationId, entry.routeId, entry.payload, at, at, at],
      );
    return added;
  }, BOOKKEEPING);
}

export function outboxRow(store: Store, id: number): OutboxRow | null {
  const row = store.get(`SELECT ${COLUMNS} FROM route_outbox WHERE id = ?`, [id]);
  return row ? outboxRowOf(row) : null;
}

/** Pending rows due at `now`, the longest waiting first. */
export function dueOutboxRows(store: Store, now: Date, limit: number): OutboxRow[] {
  return store
    .all(
      `SELECT ${COLUMNS} FROM route_outbox WHERE state = 'pending' AND next_attempt_at <= ?
       ORDER BY next_attempt_at, id LIMIT ?`,
      [now.toISOString(), limit],
    )
    .map(outboxRowOf);
}

/** When the next pending row falls due (null: none is pending). */
export function nextOutboxAttemptAt(store: Store): string | null {
  return text(store.value(`SELECT MIN(next_attempt_at) FROM route_outbox WHERE state = 'pending'`));
}

/** Marks a pending row `sending` and counts the attempt; null when it is not pending (any more). */
export function claimOutboxRow(store: Store, id: number, now: Date): OutboxRow | null {
  const changed = store.transaction(
    () =>
      store.run(
        `UPDATE route_outbox SET state = 'sending', attempts = attempts + 1, next_attempt_at = NULL,
           updated_at = ? WHERE id = ? AND state = 'pending'`,
        [now.toISOString(), id],
      ),
    BOOKKEEPING,
  );
  return changed > 0 ? outboxRow(store, id) : null;
}

/**
 * Puts a `sending` row back to pending without counting its attempt: the attempt never started
 * (the disk refused to keep the `sending` mark first).
 */
export function unclaimOutboxRow(
  store: Store,
  id: number,
  nextAttemptAt: Date,
  error: string,
  now: Date,
): void {
  store.transaction(
    () =>
      store.run(
        `UPDATE route_outbox SET state = 'pending', attempts = attempts - 1, next_attempt_at = ?,
           last_error = ?, updated_at = ? WHERE id = ? AND state = 'sending'`,
        [nextAttemptAt.toISOString(), error, now.toISOString(), id],
      ),
    BOOKKEEPING,
  );
}

/** Records what the attempt of a `sending` row came to. */
export function settleOutboxRow(store: Store, id: number, outcome: OutboxOutcome, now: Date): void {
  const next = outcome.state === 'pending' ? outcome.nextAttemptAt.toISOString() : null;
  const error = outcome.state === 'sent' ? null : outcome.error;
  store.transaction(
    () =>
      store.run(
        `UPDATE route_outbox SET state = ?, next_attempt_at = ?, last_error = ?, updated_at = ?
         WHERE id = ? AND state = 'sending'`,
        [outcome.state, next, error, now.toISOString(), id],
      ),
    BOOKKEEPING,
  );
}

/**
 * Every row still `sending` becomes `dead` with `error`: at start-up such a row was being delivered
 * when the app stopped, and whether it arrived is unknown. Returns them as they are now.
 */
export function abandonSendingRows(store: Store, error: string, now: Date): OutboxRow[] {
  const ids = store.column<number>(`SELECT id FROM route_outbox WHERE state = 'sending' ORDER BY id`);
  if (ids.length === 0) return [];
  store.transaction(
    () =>
      store.run(
        `UPDATE route_outbox SET state = 'dead', next_attempt_at = NULL, last_error = ?, updated_at = ?
         WHERE state = 'sending'`,
        [error, now.toISOString()],
      ),
    BOOKKEEPING,
  );
  return ids.map((id) => outboxRow(store, id)).filter((row): row is OutboxRow => row !== null);
}

/** The dead rows, of one org or of all, the latest to die first. */
export function deadOutboxRows(store: Store, orgId?: string): OutboxRow[] {
  const where = orgId === undefined ? '' : 'AND org_id = ?';
  return store
    .all(
      `SELECT ${COLUMNS} FROM route_outbox WHERE state = 'dead' ${where} ORDER BY updated_at DESC, id DESC`,
      orgId === undefined ? [] : [orgId],
    )
    .map(outboxRowOf);
}

/** A dead row back to pending, due now, its attempts counted afresh; null when it is not dead. */
export function reviveOutboxRow(store: Store, id: number, now: Date): OutboxRow | null {
  const at = now.toISOString();
  const changed = store.transaction(
    () =>
      store.run(
        `UPDATE route_outbox SET state = 'pending', attempts = 0, next_attempt_at = ?, updated_at = ?
         WHERE id = ? AND state = 'dead'`,
        [at, at, id],
      ),
    BOOKKEEPING,
  );
  return changed > 0 ? outboxRow(store, id) : null;
}

/** Drops rows sent before `sentBefore` and rows dead since before `deadBefore`; returns how many. */
export function pruneOutbox(store: Store, sentBefore: Date, deadBefore: Date): number {
  return store.transaction(
    () =>
      store.run(
        `DELETE FROM route_outbox WHERE (state = 'sent' AND updated_at < ?) OR (state = 'dead' AND updated_at < ?)`,
        [sentBefore.toISOString(), deadBefore.toISOString()],
      ),
    BOOKKEEPING,
  );
}
