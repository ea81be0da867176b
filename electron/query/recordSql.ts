/**
 * SQL that builds a dataset record's JSON inside SQLite, field order as the spec lists them, so a page
 * crosses from the database as one string per dataset (no per-field round trips, no re-serialization).
 */

/** How many events each record carries (a bound parameter), and whether they include runDetails. */
export interface RecordShape {
  includeRunDetails: boolean;
  /** SQL expression for the event limit: a parameter such as `?`, or `-1` for all. */
  eventLimit: string;
}

function eventJson(includeRunDetails: boolean): string {
  const runDetails = includeRunDetails
    ? `, 'runDetails', json(coalesce(e.run_details,
         (SELECT t.run_details FROM delivery_tasks t WHERE t.org_id = d.org_id AND t.delivery_id = e.delivery_id), '[]'))`
    : '';
  return `json_object('status', e.status, 'deliveryDeadline', e.deadline, 'deliveredAt', e.delivered_at,
    'processingDeadlineConfig', json(ec.json), 'deliveryId', e.delivery_id${runDetails})`;
}

/** A SELECT expression yielding the record JSON of the dataset row aliased `d` (joined config `c`). */
export function recordJsonSql(shape: RecordShape): string {
  return `json_object(
    'legacyDatasetId', d.legacy_dataset_id, 'datasetId', d.dataset_id, 'datasetName', d.name,
    'cduId', d.cdu_id, 'cduName', d.cdu_name, 'dataProductId', d.data_product_id,
    'dataProductName', d.data_product_name, 'ownerOrgId', d.owner_org_id,
    'supplier', json_object('id', d.supplier_id, 'name', d.supplier_name),
    'currentProcessingDeadlineConfig', json(c.json),
    'deliveryId', d.delivery_id,
    'deliveryEventList', json((SELECT json_group_array(json(ev)) FROM (
        SELECT ${eventJson(shape.includeRunDetails)} AS ev
        FROM events e JOIN configs ec ON ec.id = e.config_id
        WHERE e.dataset_pk = d.pk
        ORDER BY e.deadline DESC, e.delivered_at DESC, e.pk DESC LIMIT ${shape.eventLimit}))),
    'latestDeliveryStatus', d.status, 'latestDeliveryTimestamp', d.latest_ts,
    'nextExpectedDeliveryTimestamp', d.next_expected_ts)`;
}
