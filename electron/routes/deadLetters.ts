/**
 * Dead letters (docs/decisions.md "Routes: at most once (issue 27)"): deliveries given up — refused,
 * failed at every attempt, or of unknown outcome — kept for someone to look at and send again once the
 * route is mended. Sending again is a person's decision, never the deliverer's: it may deliver twice a
 * notification whose outcome was unknown. Call these inside `store.whenIdle`.
 */
import type { DeadLetter } from '../../shared/rulesView';
import type { Store } from '../store/database';
import { type OutboxRow, deadOutboxRows, reviveOutboxRow } from '../store/tables/routeOutbox';

/** Shared with the window (Settings → Rules lists them). */
export type { DeadLetter } from '../../shared/rulesView';

function titleOf(payload: string): string {
  try {
    const title = (JSON.parse(payload) as { title?: unknown }).title;
    return typeof title === 'string' ? title : '';
  } catch {
    return '';
  }
}

const deadLetterOf = (row: OutboxRow): DeadLetter => ({
  id: row.id,
  orgId: row.orgId,
  routeId: row.routeId,
  notificationId: row.notificationId,
  title: titleOf(row.payload),
  attempts: row.attempts,
  lastError: row.lastError,
  createdAt: row.createdAt,
  diedAt: row.updatedAt,
});

/** The dead letters of an org (of every org without one), the latest given up first. */
export function listDeadLetters(store: Store, orgId?: string): DeadLetter[] {
  return deadOutboxRows(store, orgId).map(deadLetterOf);
}

/**
 * Puts a dead letter back on its way, due now with its attempts counted afresh; then wake the deliverer.
 * Null when no dead letter has that id (never one still pending, being sent or sent).
 */
export function sendAgain(store: Store, id: number, now: Date): DeadLetter | null {
  const row = reviveOutboxRow(store, id, now);
  return row ? deadLetterOf(row) : null;
}
