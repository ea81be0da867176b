/**
 * The failures troubled now, as incidents.ts groups them: each FAILED or MISSING dataset's problem
 * delivery, with its cause (troubles.ts) and when it failed as far as the delivery says; and which
 * datasets a commit's refresh reads (its scope).
 */
import type { BindParams, Database } from 'sql.js';
import { PROBLEM_DELIVERY } from './failedDelivery';
import type { Row } from './row';
import { classifyTrouble } from './troubles';

/** What the incidents are written through: the store, or the raw database in a migration. */
export interface IncidentSql {
  all(sql: string, params?: BindParams): Row[];
  run(sql: string, params?: BindParams): unknown;
}

/** The raw database as refreshIncidents writes through. */
export function incidentSql(db: Database): IncidentSql {
  return {
    all(sql, params = []) {
      const statement = db.prepare(sql);
      try {
        statement.bind(params);
        const rows = [];
        while (statement.step()) rows.push(statement.getAsObject());
        return rows;
      } finally {
        statement.free();
      }
    },
    run: (sql, params = []) => db.run(sql, params),
  };
}

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

/**
 * The org's troubled datasets, each with its problem delivery and what its failure time and cause are
 * read from: the delivery's deadline and delivered time, its stored tasks' first failed task; of these
 * datasets (a seek each), the troubled among them.
 */
export function troubleRows(sql: IncidentSql, orgId: string, datasetIds: readonly string[]): Row[] {
  return sql.all(
    `SELECT p.*, e.deadline, e.delivered_at, t.org_id AS known, t.fail_stage, t.fail_code, t.fail_message,
       t.fail_at
     FROM (SELECT d.pk, d.dataset_id, d.name, d.name_key, d.data_product_name, d.supplier_id, d.supplier_name,
             d.status, ${PROBLEM_DELIVERY} AS problem
           FROM json_each(?2) j CROSS JOIN datasets d ON d.dataset_id = j.value
           WHERE d.org_id = ?1 AND d.status IN ('FAILED', 'MISSING')) p
     LEFT JOIN events e ON e.delivery_id = p.problem AND e.dataset_pk = p.pk
     LEFT JOIN delivery_tasks t ON t.org_id = ?1 AND t.delivery_id = p.problem
     ORDER BY p.name_key, p.dataset_id`,
    [orgId, JSON.stringify(datasetIds)],
  );
}

/**
 * The datasets that name any of `deliveryIds` in their history or as their latest delivery: the ones
 * whose trouble a commit of those deliveries' tasks may change.
 */
export function datasetsOfDeliveries(
  sql: IncidentSql,
  orgId: string,
  deliveryIds: readonly string[],
): string[] {
  if (deliveryIds.length === 0) return [];
  return sql
    .all(
      `SELECT d.dataset_id FROM json_each(?2) j CROSS JOIN events e ON e.delivery_id = j.value
         CROSS JOIN datasets d ON d.pk = e.dataset_pk AND d.org_id = ?1
       UNION
       SELECT d.dataset_id FROM json_each(?2) j CROSS JOIN datasets d ON d.org_id = ?1 AND d.delivery_id = j.value`,
      [orgId, JSON.stringify(deliveryIds)],
    )
    .map((row) => String(row.dataset_id));
}

/**
 * When a failure happened, as far as the delivery says (before the cap by when the mirror learned of
 * it): MISSING at its deadline; FAILED when its first failed task ended (else that stage's time), else
 * at the delivery's own time, else its deadline. Null when nothing says.
 */
export function reportedFailureTime(row: Row): string | null {
  if (String(row.status) === 'MISSING') return text(row.deadline);
  return text(row.fail_at) ?? text(row.delivered_at) ?? text(row.deadline);
}

/** A troubled dataset's failure now. */
export interface CurrentFailure {
  datasetId: string;
  /** The failed (or missing) delivery; '' when the remote named none. */
  deliveryId: string;
  status: string;
  causeId: string;
  title: string;
  /** When it happened as the delivery says, or null. */
  reportedAt: string | null;
}

export function currentFailureOf(row: Row): CurrentFailure {
  const status = String(row.status);
  const classified = classifyTrouble({
    status,
    known: row.known !== null && row.known !== undefined,
    stage: text(row.fail_stage),
    shortCode: text(row.fail_code),
    supplierId: text(row.supplier_id),
    supplierName: text(row.supplier_name),
  });
  return {
    datasetId: String(row.dataset_id),
    deliveryId: text(row.problem) ?? '',
    status,
    causeId: classified.causeId,
    title: classified.title,
    reportedAt: reportedFailureTime(row),
  };
}

/**
 * Above this many changed datasets a refresh reads the whole org: one scan is cheaper than a list of
 * ids that long (a first sync, a crawl that found most of the org changed).
 */
const SCOPED_REFRESH_MAX = 20_000;

/** `datasetIds` for RefreshOptions: the datasets a commit changed, or the whole org when they are many. */
export function refreshScope(changed: ReadonlySet<string>): readonly string[] | undefined {
  return changed.size > SCOPED_REFRESH_MAX ? undefined : [...changed];
}

/** The scope of a commit of some deliveries' tasks: the datasets those deliveries belong to. */
export function tasksScope(
  sql: IncidentSql,
  orgId: string,
  deliveryIds: readonly string[],
): readonly string[] | undefined {
  return refreshScope(new Set(datasetsOfDeliveries(sql, orgId, deliveryIds)));
}
