/**
 * A member's log of the team's operations (docs/decisions.md "On call as a team: members") and the
 * state derived from it. For an org linked to a team server, the acknowledgements and snoozes tables
 * hold what the log decides, written in the transaction that adds to the log:
 *
 * - one failure's acknowledgement is its latest `acknowledge` or `unacknowledge`, latest by (clock
 *   reading, author, id) — SQLite compares text by its UTF-8 bytes, which is the order of code points,
 *   as the team's model does (electron/team/converge.ts);
 * - one dataset's snooze is its latest `snooze` or `unsnooze`;
 * - every `acknowledge` with a note is a timeline entry of its own (the notes of a failure: a union).
 *
 * Whether an acknowledgement still holds is read from the health every member mirrors: one that
 * arrives for a failure the dataset has moved on from is kept, ended, and never ends the current one.
 */
import type { TeamOperation } from '../../../shared/team';
import type { Store } from '../database';
import { PROBLEM_DELIVERY } from '../schema/failedDelivery';
import { endReason } from './acknowledgements';
import { addTimelineEntry } from './timeline';

/** What one operation decides: a failure's acknowledgement, or a dataset's snooze. */
export function targetOf(op: TeamOperation): string {
  if (op.kind === 'acknowledge' || op.kind === 'unacknowledge') {
    // A delivery's acknowledgement, whichever status it was given for (the table's key): the status is
    // what it said, and whether that still holds is the health's to say.
    const { datasetId, deliveryId } = op.payload;
    return `ack:${JSON.stringify([datasetId, deliveryId])}`;
  }
  return `snooze:${JSON.stringify([op.payload.datasetId])}`;
}

/** The wall-clock part of a clock reading (`2026-11-29T12:45:14.123Z#0003`): when it was done. */
export const wallTime = (at: string): string => at.slice(0, at.indexOf('#'));

/**
 * When an operation was done, as shown (the acknowledgement's time, the timeline's): its wall-clock
 * time, but never later than `now`, when this desktop applied it. A member whose computer runs ahead
 * (the team server takes readings up to an hour ahead) must not show everyone a time in the future.
 */
export const shownTime = (at: string, now: Date): string => {
  const wall = wallTime(at);
  const applied = now.toISOString();
  return wall < applied ? wall : applied;
};

const operationOf = (row: Record<string, unknown>): TeamOperation =>
  ({
    opId: String(row.op_id),
    orgId: String(row.org_id),
    author: String(row.author),
    at: String(row.at),
    kind: String(row.kind),
    payload: JSON.parse(String(row.payload)) as unknown,
  }) as TeamOperation;

const COLUMNS = 'op_id, org_id, author, at, kind, payload';

/**
 * Adds `op` to the log and applies it, unless the log has it (then only its server number is noted).
 * `seq`: the team server's number (0 for the member's own new one); `pushed`: false for the outbox.
 * Returns whether it was new. Call inside a transaction.
 */
export function recordOperation(
  store: Store,
  op: TeamOperation,
  origin: { seq: number; pushed: boolean },
  now: Date,
): boolean {
  const added = store.run(
    `INSERT INTO team_log (op_id, org_id, at, author, kind, target, payload, seq, pushed)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (op_id) DO NOTHING`,
    [
      op.opId,
      op.orgId,
      op.at,
      op.author,
      op.kind,
      targetOf(op),
      JSON.stringify(op.payload),
      origin.seq,
      origin.pushed ? 1 : 0,
    ],
  );
  if (added === 0) {
    // Ours, back from the server: it has its number now, and it is surely pushed.
    if (origin.seq > 0)
      store.run('UPDATE team_log SET seq = ?, pushed = 1 WHERE op_id = ? AND seq = 0', [origin.seq, op.opId]);
    return false;
  }
  if (op.kind === 'acknowledge' || op.kind === 'unacknowledge') {
    const { datasetId, deliveryId, status } = op.payload;
    addTimelineEntry(store, {
      orgId: op.orgId,
      datasetId,
      at: shownTime(op.at, now),
      kind: op.kind === 'acknowledge' ? 'acknowledged' : 'unacknowledged',
      deliveryId,
      ...(op.kind === 'acknowledge' ? { to: status, text: op.payload.note } : {}),
      by: op.author,
    });
  }
  applyTarget(store, op.orgId, targetOf(op), now);
  return true;
}

/** The latest operation on `target`, if the log has one. */
function latestOn(store: Store, orgId: string, target: string): TeamOperation | null {
  const row = store.get(
    `SELECT ${COLUMNS} FROM team_log WHERE org_id = ? AND target = ?
     ORDER BY at DESC, author DESC, op_id DESC LIMIT 1`,
    [orgId, target],
  );
  return row === undefined ? null : operationOf(row);
}

/** Writes what the log decides of `target` into the acknowledgements or snoozes table. */
function applyTarget(store: Store, orgId: string, target: string, now: Date): void {
  const latest = latestOn(store, orgId, target);
  if (latest === null) {
    // Its last operation was dropped (refused by the server): nothing decides it any more.
    const [kind, key] = [
      target.slice(0, target.indexOf(':')),
      JSON.parse(target.slice(target.indexOf(':') + 1)),
    ];
    if (kind === 'ack') {
      const [datasetId, deliveryId] = key as [string, string];
      store.run('DELETE FROM acknowledgements WHERE org_id = ? AND dataset_id = ? AND delivery_id = ?', [
        orgId,
        datasetId,
        deliveryId,
      ]);
    } else
      store.run('DELETE FROM snoozes WHERE org_id = ? AND dataset_id = ?', [orgId, (key as [string])[0]]);
    return;
  }
  switch (latest.kind) {
    case 'acknowledge':
      return applyAcknowledge(store, latest, now);
    case 'unacknowledge': {
      const { datasetId, deliveryId } = latest.payload;
      store.run('DELETE FROM acknowledgements WHERE org_id = ? AND dataset_id = ? AND delivery_id = ?', [
        orgId,
        datasetId,
        deliveryId,
      ]);
      return;
    }
    case 'snooze': {
      const { datasetId, kind, until, deliveryId } = latest.payload;
      store.run(
        `INSERT INTO snoozes (org_id, dataset_id, kind, until, delivery_id, created_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (org_id, dataset_id) DO UPDATE SET kind = excluded.kind, until = excluded.until,
           delivery_id = excluded.delivery_id, created_at = excluded.created_at`,
        [orgId, datasetId, kind, until, deliveryId, shownTime(latest.at, now)],
      );
      return;
    }
    case 'unsnooze':
      store.run('DELETE FROM snoozes WHERE org_id = ? AND dataset_id = ?', [orgId, latest.payload.datasetId]);
  }
}

function applyAcknowledge(
  store: Store,
  op: Extract<TeamOperation, { kind: 'acknowledge' }>,
  now: Date,
): void {
  const { orgId } = op;
  const { datasetId, deliveryId, status, note, causeId } = op.payload;
  const current = store.get(
    `SELECT d.status, ${PROBLEM_DELIVERY} AS problem FROM datasets d WHERE d.org_id = ? AND d.dataset_id = ?`,
    [orgId, datasetId],
  );
  const holds = current !== undefined && current.status === status && current.problem === deliveryId;
  const at = shownTime(op.at, now);
  const reason = holds
    ? null
    : endReason(
        status,
        current === undefined ? null : String(current.status),
        current === undefined ? null : (current.problem as string | null),
      );
  store.run(
    `INSERT INTO acknowledgements (org_id, dataset_id, delivery_id, status, cause_id, note, by_name, at, ended_at, end_reason)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (org_id, dataset_id, delivery_id) DO UPDATE SET status = excluded.status,
       cause_id = excluded.cause_id, note = excluded.note, by_name = excluded.by_name, at = excluded.at,
       ended_at = CASE WHEN excluded.ended_at IS NULL THEN NULL ELSE coalesce(acknowledgements.ended_at, excluded.ended_at) END,
       end_reason = excluded.end_reason`,
    [
      orgId,
      datasetId,
      deliveryId,
      status,
      causeId,
      note,
      op.author,
      at,
      holds ? null : now.toISOString(),
      reason,
    ],
  );
  // One acknowledgement holds per dataset: an earlier failure's, whose end no sync has seen yet, gives way.
  if (holds)
    store.run(
      `UPDATE acknowledgements SET ended_at = ?, end_reason = 'another failure was acknowledged'
       WHERE org_id = ? AND dataset_id = ? AND ended_at IS NULL AND delivery_id <> ?`,
      [now.toISOString(), orgId, datasetId, deliveryId],
    );
}

/** The org's operations waiting to be pushed, oldest first. */
export function outboxOf(store: Store, orgId: string, limit: number): TeamOperation[] {
  return store
    .all(`SELECT ${COLUMNS} FROM team_log WHERE org_id = ? AND pushed = 0 ORDER BY at, op_id LIMIT ?`, [
      orgId,
      limit,
    ])
    .map(operationOf);
}

export function outboxCount(store: Store, orgId: string): number {
  return store.value<number>('SELECT count(*) FROM team_log WHERE org_id = ? AND pushed = 0', [orgId]) ?? 0;
}

/** The team server has these (it answered their push). */
export function markPushed(store: Store, opIds: readonly string[]): void {
  store.transaction(
    () => {
      for (const opId of opIds) store.run('UPDATE team_log SET pushed = 1 WHERE op_id = ?', [opId]);
    },
    { dataChange: false },
  );
}

/**
 * Takes back operations the team server refused for good (the member became a viewer, say): out of
 * the log, and what they decided is decided again by what remains. Returns the operations dropped.
 */
export function dropOperations(store: Store, opIds: readonly string[], now: Date): TeamOperation[] {
  return store.transaction(() => {
    const dropped: TeamOperation[] = [];
    for (const opId of opIds) {
      const row = store.get(`SELECT ${COLUMNS} FROM team_log WHERE op_id = ? AND pushed = 0`, [opId]);
      if (row === undefined) continue;
      const op = operationOf(row);
      store.run('DELETE FROM team_log WHERE op_id = ?', [opId]);
      applyTarget(store, op.orgId, targetOf(op), now);
      dropped.push(op);
    }
    return dropped;
  });
}

/** Every operation of the org in the log, in the team's order (for comparing members in tests and checks). */
export function operationsOf(store: Store, orgId: string): TeamOperation[] {
  return store
    .all(`SELECT ${COLUMNS} FROM team_log WHERE org_id = ? ORDER BY at, author, op_id`, [orgId])
    .map(operationOf);
}

/**
 * Forgets the org's log (leaving its team): what it decided stays in the acknowledgements and snoozes
 * tables, now this desktop's own. Call inside a transaction.
 */
export function forgetOperations(store: Store, orgId: string): void {
  store.run('DELETE FROM team_log WHERE org_id = ?', [orgId]);
}

/** Whether the org has a team log (it is, or was made on, a team server's or a member's store). */
export function hasTeamLog(store: Store, orgId: string): boolean {
  return store.value<number>('SELECT 1 FROM team_log WHERE org_id = ? LIMIT 1', [orgId]) !== undefined;
}

/**
 * After a sync changed a dataset of an org with a team log: its current failure's acknowledgement as
 * the log decides it. A teammate's acknowledgement can arrive before this mirror has seen the failure
 * (the event is faster than the next poll); it was kept ended then, and holds now. Call inside the
 * sync's transaction, after the dataset is written.
 */
export function reapplyForDataset(store: Store, orgId: string, datasetId: string, now: Date): void {
  const row = store.get(
    `SELECT ${PROBLEM_DELIVERY} AS problem FROM datasets d WHERE d.org_id = ? AND d.dataset_id = ?`,
    [orgId, datasetId],
  );
  if (row === undefined || row.problem === null || row.problem === undefined) return;
  const target = `ack:${JSON.stringify([datasetId, String(row.problem)])}`;
  if (
    store.value<number>('SELECT 1 FROM team_log WHERE org_id = ? AND target = ? LIMIT 1', [orgId, target]) ===
    undefined
  )
    return;
  applyTarget(store, orgId, target, now);
}
