/**
 * Export of an org's snapshot (docs/architecture.md#snapshots): every record with all stored events, and its tasks; then
 * the local knowledge of those datasets (docs/architecture.md#snapshots): each one's timeline (oldest first), the acknowledgements
 * (open and ended), the org's sync outages and its incidents with their failures. The format:
 * docs/decisions.md "Snapshots: the local knowledge"; import reads it back (store/snapshot/importSnapshot.ts).
 */
import type { SqlValue } from 'sql.js';
import type { Store } from '../store/database';
import { unpackTasks } from '../store/schema/tasksBlob';
import type { SnapshotCounts } from '../store/snapshot/importSnapshot';
import { recordJsonSql } from './recordSql';

const EXPORT_RECORD = `SELECT ${recordJsonSql({ includeRunDetails: true, eventLimit: '-1' })}
  FROM datasets d WHERE d.org_id = ? ORDER BY d.name_key, d.dataset_id`;

/** Knowledge of the org's datasets only: what import checks against the file's datasets. */
const OF_A_DATASET = (table: string): string =>
  `EXISTS (SELECT 1 FROM datasets d WHERE d.org_id = ${table}.org_id AND d.dataset_id = ${table}.dataset_id)`;

const EXPORT_TIMELINE = `SELECT dataset_id, at, kind, from_status, to_status, delivery_id, text, by_name
  FROM timeline WHERE org_id = ? AND ${OF_A_DATASET('timeline')} ORDER BY dataset_id, at_key, id`;

/**
 * An ended acknowledgement goes with its delivery: once retention dropped that delivery from its dataset
 * (as it drops tasks), the file would name a delivery it does not have, which import refuses. An open one
 * holds on its dataset's current delivery (docs/decisions.md "Snapshots: the local knowledge").
 */
const OF_A_DELIVERY_KEPT = `(a.ended_at IS NULL OR EXISTS (SELECT 1 FROM datasets d WHERE d.org_id = a.org_id
  AND d.dataset_id = a.dataset_id AND (d.delivery_id = a.delivery_id
    OR EXISTS (SELECT 1 FROM events e WHERE e.delivery_id = a.delivery_id AND e.dataset_pk = d.pk))))`;

const EXPORT_ACKNOWLEDGEMENTS = `SELECT dataset_id, delivery_id, status, cause_id, note, by_name, at, ended_at,
  end_reason FROM acknowledgements a WHERE org_id = ? AND ${OF_A_DATASET('a')} AND ${OF_A_DELIVERY_KEPT}
  ORDER BY dataset_id, at, delivery_id`;

const EXPORT_SYNC_OUTAGES = `SELECT source_id, source_name, last_success_at, lost_at, regained_at
  FROM sync_outages WHERE org_id = ? ORDER BY lost_at, source_id, id`;

/**
 * The org's incidents, each row one failure with its incident's columns (by incident, then failure).
 * Failures of datasets the org no longer has (removed by the remote, so over) are left out, as the other
 * knowledge of such datasets is (gone): import takes failures of the org's datasets only, and an
 * incident left with none is not written.
 */
const EXPORT_INCIDENTS = `SELECT i.incident_id, i.cause_id, i.title, i.first_failure_at, i.last_failure_at, i.opened_at,
  i.ended_at, f.dataset_id, f.delivery_id, f.status, f.failure_at, f.learned_at, f.ended_at
  FROM incidents i JOIN incident_failures f ON f.org_id = i.org_id AND f.incident_id = i.incident_id
  WHERE i.org_id = ? AND ${OF_A_DATASET('f')}
  ORDER BY i.incident_id, f.dataset_id, f.delivery_id, f.status`;

export type ExportCounts = SnapshotCounts;

const text = (value: SqlValue | undefined): string | null => (value == null ? null : String(value));

/** Writes the org's snapshot as JSON text, one record at a time (a large org is never one string). */
export function exportSnapshot(store: Store, orgId: string, write: (chunk: string) => void): ExportCounts {
  write('{"datasets":[');
  // Run details as stored (given by the source), never the ones derived from tasks: a re-import must not
  // freeze a derivation, or an empty list for tasks that arrive later.
  let separator = '\n';
  const datasets = store.eachValue<string>(EXPORT_RECORD, [orgId], (record) => {
    write(separator + record);
    separator = ',\n';
  });
  write('\n],"tasks":{');
  separator = '\n';
  const tasks = store.eachValue<string>(
    'SELECT delivery_id FROM delivery_tasks WHERE org_id = ? ORDER BY delivery_id',
    [orgId],
    (deliveryId) => {
      const blob = store.value<Uint8Array>(
        'SELECT json FROM delivery_tasks WHERE org_id = ? AND delivery_id = ?',
        [orgId, deliveryId],
      );
      write(`${separator}${JSON.stringify(deliveryId)}:${JSON.stringify(unpackTasks(blob!))}`);
      separator = ',\n';
    },
  );
  return { datasets, tasks, ...exportKnowledge(store, orgId, write) };
}

/** The timeline (a dataset per line), acknowledgements, sync outages and incidents (one per line), and the end. */
function exportKnowledge(
  store: Store,
  orgId: string,
  write: (chunk: string) => void,
): Omit<ExportCounts, 'datasets' | 'tasks'> {
  write('\n},"timeline":{');
  let separator = '\n';
  let dataset: string | null = null;
  let entries: string[] = [];
  const flush = (): void => {
    if (dataset === null) return;
    write(`${separator}${JSON.stringify(dataset)}:[${entries.join(',')}]`);
    separator = ',\n';
  };
  const timelineEntries = store.eachRow(EXPORT_TIMELINE, [orgId], (row) => {
    const [datasetId, at, kind, from, to, deliveryId, note, by] = row;
    if (datasetId !== dataset) {
      flush();
      dataset = String(datasetId);
      entries = [];
    }
    entries.push(
      JSON.stringify({
        at: text(at),
        kind: text(kind),
        from: text(from),
        to: text(to),
        deliveryId: text(deliveryId),
        text: text(note),
        by: text(by),
      }),
    );
  });
  flush();
  write('\n},"acknowledgements":[');
  separator = '\n';
  const acknowledgements = store.eachRow(EXPORT_ACKNOWLEDGEMENTS, [orgId], (row) => {
    const [datasetId, deliveryId, status, causeId, note, by, at, endedAt, endReason] = row.map(text);
    write(
      separator +
        JSON.stringify({ datasetId, deliveryId, status, causeId, note, by, at, endedAt, endReason }),
    );
    separator = ',\n';
  });
  write('\n],"syncOutages":[');
  separator = '\n';
  const syncOutages = store.eachRow(EXPORT_SYNC_OUTAGES, [orgId], (row) => {
    const [sourceId, sourceName, lastSuccessAt, lostAt, regainedAt] = row.map(text);
    write(separator + JSON.stringify({ sourceId, sourceName, lastSuccessAt, lostAt, regainedAt }));
    separator = ',\n';
  });
  write('\n],"incidents":[');
  const incidents = exportIncidents(store, orgId, write);
  write('\n]}\n');
  return { timelineEntries, acknowledgements, syncOutages, incidents };
}

/** The incidents, one per line with its failures; returns how many. */
function exportIncidents(store: Store, orgId: string, write: (chunk: string) => void): number {
  let separator = '\n';
  let count = 0;
  let incident: Record<string, unknown> | null = null;
  let failures: string[] = [];
  const flush = (): void => {
    if (incident === null) return;
    // `failures` last: the incident's fields as import lists them, then its failures as written.
    const head = JSON.stringify(incident);
    write(`${separator}${head.slice(0, -1)},"failures":[${failures.join(',')}]}`);
    separator = ',\n';
    count++;
  };
  store.eachRow(EXPORT_INCIDENTS, [orgId], (row) => {
    const [incidentId, causeId, title, firstFailureAt, lastFailureAt, openedAt, endedAt] = row
      .slice(0, 7)
      .map(text);
    if (incident === null || incident.incidentId !== incidentId) {
      flush();
      incident = { incidentId, causeId, title, firstFailureAt, lastFailureAt, openedAt, endedAt };
      failures = [];
    }
    const [datasetId, deliveryId, status, failureAt, learnedAt, failureEndedAt] = row.slice(7).map(text);
    failures.push(
      JSON.stringify({ datasetId, deliveryId, status, failureAt, learnedAt, endedAt: failureEndedAt }),
    );
  });
  flush();
  return count;
}
