/**
 * Which delivery a FAILED dataset is about, as SQL over a dataset row `d` (docs/architecture.md#sync, docs/architecture.md#alerts). The sync
 * names it in its status transitions and the alerts remember it as announced: one expression, kept here
 * beside the schema (SQL lives in store/ and query/, docs/architecture.md#layers), so the two can never disagree.
 */
import type { Database } from 'sql.js';

/**
 * SQL for the newest FAILED delivery among the stored events of the dataset whose row key is `pk` (SQL):
 * what `datasets.failed_delivery` holds. Read once per written dataset (tables/datasetWriter.ts), and
 * by the migration that made the column.
 */
export const newestFailedOf = (pk: string): string => `(SELECT e.delivery_id FROM events e
  WHERE e.dataset_pk = ${pk} AND e.status = 'FAILED'
  ORDER BY e.deadline_key DESC, e.delivered_key DESC, e.seq DESC LIMIT 1)`;

/**
 * SQL for the newest FAILED delivery of dataset row `d`: stored on the row, kept by every write of its
 * events (docs/decisions.md "The failed delivery, stored").
 */
export const NEWEST_FAILED_DELIVERY = 'd.failed_delivery';

/**
 * Makes `datasets.failed_delivery`, filled from the stored events, and an index of the FAILED datasets
 * with it, unless the database has them. After every poll the sync and the alerts each ask something
 * of every FAILED dataset's failed delivery (7k of them at 100k datasets): a look into the events per
 * dataset, or into its row, is a page read each (23–28 ms a question); the index answers from a few
 * hundred pages (4–10 ms). A query is served by it when it says `d.status = 'FAILED'`.
 *
 * A migration of its own, and also run by an earlier one that groups the stored troubles into
 * incidents, whose SQL (this file's) reads the column.
 */
export function addFailedDeliveryColumn(db: Database): void {
  const columns = db.exec(`SELECT 1 FROM pragma_table_info('datasets') WHERE name = 'failed_delivery'`);
  if (columns.length > 0) return;
  db.run(`ALTER TABLE datasets ADD COLUMN failed_delivery TEXT;
    UPDATE datasets SET failed_delivery = ${newestFailedOf('datasets.pk')};
    CREATE INDEX datasets_failed ON datasets (org_id, failed_delivery, delivery_id, name_key, dataset_id)
      WHERE status = 'FAILED';`);
}

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
