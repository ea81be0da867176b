/**
 * SQL that builds a dataset record's JSON inside SQLite, field order as the spec lists them, so a page
 * crosses from the database as one string per dataset (no per-field round trips, no re-serialization).
 *
 * The JSON is concatenated text rather than json_object(): SQLite's JSON functions re-parse every nested
 * value, which made a 50 × 10 page about three times slower in WebAssembly. Strings go through
 * json_quote; stored timestamps are normalized RFC 3339 (nothing to escape); configs are stored as JSON.
 */

/** How many events each record carries (a bound parameter), and whether they include runDetails. */
export interface RecordShape {
  includeRunDetails: boolean;
  /** SQL expression for the event limit: a parameter such as `?`, or `-1` for all. */
  eventLimit: string;
}

export type Value = { text: string } | { time: string } | { json: string } | { jsonIfAny: string };

/**
 * `{"key":value,...}` as one SQL concat() call: a chain of `||` would copy the growing string at every
 * step, which is what dominated the page query in WebAssembly.
 */
export function jsonObjectSql(fields: [string, Value][]): string {
  const parts = fields.flatMap(([key, value], i) => {
    // Present only when not null; never the first field, so it always starts with a comma.
    if ('jsonIfAny' in value) return [`coalesce(',"${key}":' || ${value.jsonIfAny}, '')`];
    const sql =
      'text' in value
        ? `json_quote(${value.text})`
        : 'time' in value
          ? `coalesce('"' || ${value.time} || '"', 'null')`
          : value.json;
    return [`'${i === 0 ? '{' : ','}"${key}":'`, sql];
  });
  return `concat(${parts.join(', ')}, '}')`;
}

function eventJson(includeRunDetails: boolean): string {
  return jsonObjectSql([
    ['status', { text: 'e.status' }],
    ['deliveryDeadline', { time: 'e.deadline' }],
    ['deliveredAt', { time: 'e.delivered_at' }],
    ['processingDeadlineConfig', { json: 'ec.json' }],
    ['deliveryId', { text: 'e.delivery_id' }],
    // Absent when none are stored: the query layer fills them from tasks (runDetails.ts).
    ...(includeRunDetails ? [['runDetails', { jsonIfAny: 'e.run_details' }] as [string, Value]] : []),
  ]);
}

/** A SELECT expression yielding the record JSON of the dataset row aliased `d`. */
export function recordJsonSql(shape: RecordShape): string {
  const events = `concat('[', (SELECT group_concat(ev, ',') FROM (
      SELECT ${eventJson(shape.includeRunDetails)} AS ev
      FROM events e JOIN configs ec ON ec.id = e.config_id
      WHERE e.dataset_pk = d.pk
      ORDER BY e.deadline_key DESC, e.delivered_key DESC, e.seq DESC LIMIT ${shape.eventLimit})), ']')`;
  return jsonObjectSql([
    ['legacyDatasetId', { text: 'd.legacy_dataset_id' }],
    ['datasetId', { text: 'd.dataset_id' }],
    ['datasetName', { text: 'd.name' }],
    ['cduId', { text: 'd.cdu_id' }],
    ['cduName', { text: 'd.cdu_name' }],
    ['dataProductId', { text: 'd.data_product_id' }],
    ['dataProductName', { text: 'd.data_product_name' }],
    ['ownerOrgId', { text: 'd.owner_org_id' }],
    [
      'supplier',
      {
        json: jsonObjectSql([
          ['id', { text: 'd.supplier_id' }],
          ['name', { text: 'd.supplier_name' }],
        ]),
      },
    ],
    ['currentProcessingDeadlineConfig', { json: '(SELECT json FROM configs WHERE id = d.config_id)' }],
    ['deliveryId', { text: 'd.delivery_id' }],
    ['deliveryEventList', { json: events }],
    ['latestDeliveryStatus', { text: 'd.status' }],
    ['latestDeliveryTimestamp', { time: 'd.latest_ts' }],
    ['nextExpectedDeliveryTimestamp', { time: 'd.next_expected_ts' }],
  ]);
}
