/**
 * Which delivery a FAILED dataset is about, as SQL over a dataset row `d` (docs/architecture.md#sync, docs/architecture.md#alerts). The sync
 * names it in its status transitions and the alerts remember it as announced: one expression, kept here
 * beside the schema (SQL lives in store/ and query/, docs/architecture.md#layers), so the two can never disagree.
 */

/** SQL for the newest FAILED delivery of dataset row `d`. */
export const NEWEST_FAILED_DELIVERY = `(SELECT e.delivery_id FROM events e WHERE e.dataset_pk = d.pk
  AND e.status = 'FAILED' ORDER BY e.deadline_key DESC, e.delivered_key DESC, e.seq DESC LIMIT 1)`;

/**
 * SQL for the delivery a FAILED dataset row `d` is about: its newest FAILED event, else (a remote that
 * sent no history) its latest delivery.
 */
export const FAILED_DELIVERY = `COALESCE(${NEWEST_FAILED_DELIVERY}, d.delivery_id)`;

/**
 * SQL for the delivery a troubled dataset row `d` is about: the failed one while FAILED, the latest
 * while MISSING, else null. An acknowledgement holds while it names this delivery and status.
 */
export const PROBLEM_DELIVERY = `CASE d.status WHEN 'FAILED' THEN ${FAILED_DELIVERY}
  WHEN 'MISSING' THEN d.delivery_id END`;

/**
 * PROBLEM_DELIVERY as it will be once retention keeps the newest `limit` events of `d` (SQL for a
 * number): an import reads it before it trims its datasets' events (store/snapshot/recordWriter.ts).
 */
export const problemDeliveryKept = (limit: string): string => `CASE d.status
  WHEN 'FAILED' THEN COALESCE((SELECT k.delivery_id FROM (
      SELECT e.delivery_id, e.status, e.deadline_key, e.delivered_key, e.seq FROM events e WHERE e.dataset_pk = d.pk
      ORDER BY e.deadline_key DESC, e.delivered_key DESC, e.seq DESC LIMIT ${limit}) k
    WHERE k.status = 'FAILED' ORDER BY k.deadline_key DESC, k.delivered_key DESC, k.seq DESC LIMIT 1), d.delivery_id)
  WHEN 'MISSING' THEN d.delivery_id END`;
