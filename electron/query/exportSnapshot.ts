/**
 * Export of an org's snapshot (docs/architecture.md#snapshots): every record with all stored events, and its tasks; then
 * the local knowledge of those datasets (docs/architecture.md#snapshots): each one's timeline (oldest first), the acknowledgements
 * (open and ended), the org's sync outages and its incidents with their failures. The format:
 * docs/decisions.md "Snapshots: the local knowledge"; import reads it back (store/snapshot/importSnapshot.ts).
 *
 * The engine exports in slices (`exportSnapshotInSlices`, docs/decisions.md "Export in slices"): about
 * SLICE_CHARS of text at a time, handed to the sink and awaited, with the writers held off meanwhile so
 * the file is the org of one moment while readers go on.
 */
import { inflateRawSync } from 'node:zlib';
import type { SqlValue } from 'sql.js';
import type { Rows, Store } from '../store/database';
import { getOrg } from '../store/tables/orgs';
import type { SnapshotCounts } from '../store/snapshot/importSnapshot';
import { recordJsonSql } from './recordSql';

/** Text handed to the sink at a time: a few milliseconds of work, and what a slow reader may have queued. */
export const SLICE_CHARS = 1024 * 1024;

const EXPORT_RECORD = `SELECT ${recordJsonSql({ includeRunDetails: true, eventLimit: '-1' })}
  FROM datasets d WHERE d.org_id = ? ORDER BY d.name_key, d.dataset_id`;

/**
 * Each delivery's tasks as stored: the text `tasksText` wrote (JSON.stringify's own output, which parsing
 * and writing again gives back unchanged), so it goes out as it is, without a parse.
 */
const EXPORT_TASKS = 'SELECT delivery_id, json FROM delivery_tasks WHERE org_id = ? ORDER BY delivery_id';

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

/** Where the pieces of the file go; `full` says a slice is ready and the export should yield. */
interface Pieces {
  write(text: string): void;
  readonly full: boolean;
}

/** How far an export is, after each slice: records (datasets and tasks of deliveries) of the total. */
export interface ExportProgress {
  records: number;
  total: number;
}

/** Where an export in slices goes. */
export interface ExportSink {
  /** Takes one slice of the text; the next is produced once this resolves (backpressure). */
  write(text: string): Promise<void>;
  /** After each slice is written but the last (the caller tells of the end itself). */
  progress?(progress: ExportProgress): void;
}

/**
 * Writes the org's snapshot in one synchronous run, one piece at a time (never one string): for tests
 * and tools. The engine uses `exportSnapshotInSlices`, which leaves the event loop free.
 */
export function exportSnapshot(store: Store, orgId: string, write: (chunk: string) => void): ExportCounts {
  const parts = snapshotParts(store, orgId, { write, full: false });
  for (;;) {
    const step = parts.next();
    if (step.done) return step.value;
  }
}

/**
 * Writes the org's snapshot in slices of about SLICE_CHARS, each awaited by `sink.write` before the next
 * is read, with the writers held off throughout (`Store.holdingWriters`): the file is the org of one
 * moment, readers are answered between slices, and a commit waits for the end. Null when there is no such
 * org (nothing is written).
 */
export async function exportSnapshotInSlices(
  store: Store,
  orgId: string,
  sink: ExportSink,
): Promise<ExportCounts | null> {
  return store.holdingWriters(async () => {
    if (!getOrg(store, orgId)) return null;
    const total =
      Number(store.value<number>('SELECT count(*) FROM datasets WHERE org_id = ?', [orgId])) +
      Number(store.value<number>('SELECT count(*) FROM delivery_tasks WHERE org_id = ?', [orgId]));
    let pieces: string[] = [];
    let size = 0;
    const slice = {
      write(text: string) {
        pieces.push(text);
        size += text.length;
      },
      get full() {
        return size >= SLICE_CHARS;
      },
    };
    const parts = snapshotParts(store, orgId, slice);
    const flush = async (): Promise<void> => {
      const text = pieces.join('');
      pieces = [];
      size = 0;
      await sink.write(text);
    };
    try {
      for (;;) {
        const step = parts.next();
        await flush();
        if (step.done) return step.value;
        sink.progress?.({ records: step.value, total });
        // A sink that resolves at once (a fast pipe) still lets timers and requests in between slices.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      // Stopped early (the reader went away): the open statement is freed.
      parts.return(undefined as never);
    }
  });
}

/**
 * The snapshot's text, into `out`; yields the records written so far whenever `out` is full, and
 * returns the counts. Rows are read through `openRows`, so a pause between two slices keeps each
 * query where it was.
 */
function* snapshotParts(store: Store, orgId: string, out: Pieces): Generator<number, ExportCounts> {
  out.write('{"datasets":[');
  // Run details as stored (given by the source), never the ones derived from tasks: a re-import must not
  // freeze a derivation, or an empty list for tasks that arrive later.
  let separator = '\n';
  let datasets = 0;
  for (const [record] of rows(store, EXPORT_RECORD, [orgId])) {
    out.write(separator + String(record));
    separator = ',\n';
    datasets++;
    if (out.full) yield datasets;
  }
  out.write('\n],"tasks":{');
  separator = '\n';
  let tasks = 0;
  for (const [deliveryId, blob] of rows(store, EXPORT_TASKS, [orgId])) {
    const stored = inflateRawSync(blob as Uint8Array).toString('utf8');
    out.write(`${separator}${JSON.stringify(deliveryId)}:${stored}`);
    separator = ',\n';
    tasks++;
    if (out.full) yield datasets + tasks;
  }
  const knowledge = yield* exportKnowledge(store, orgId, out, datasets + tasks);
  return { datasets, tasks, ...knowledge };
}

/** The rows of a query, a statement of their own, freed when the loop ends or is left. */
function* rows(store: Store, sql: string, params: SqlValue[]): Generator<SqlValue[], void> {
  const open: Rows = store.openRows(sql, params);
  try {
    for (let row = open.next(); row !== undefined; row = open.next()) yield row;
  } finally {
    open.close();
  }
}

/** The timeline (a dataset per line), acknowledgements, sync outages and incidents (one per line), and the end. */
function* exportKnowledge(
  store: Store,
  orgId: string,
  out: Pieces,
  records: number,
): Generator<number, Omit<ExportCounts, 'datasets' | 'tasks'>> {
  out.write('\n},"timeline":{');
  let separator = '\n';
  let dataset: string | null = null;
  let entries: string[] = [];
  const flush = (): void => {
    if (dataset === null) return;
    out.write(`${separator}${JSON.stringify(dataset)}:[${entries.join(',')}]`);
    separator = ',\n';
  };
  let timelineEntries = 0;
  for (const row of rows(store, EXPORT_TIMELINE, [orgId])) {
    const [datasetId, at, kind, from, to, deliveryId, note, by] = row;
    if (datasetId !== dataset) {
      flush();
      if (out.full) yield records;
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
    timelineEntries++;
  }
  flush();
  out.write('\n},"acknowledgements":[');
  separator = '\n';
  let acknowledgements = 0;
  for (const row of rows(store, EXPORT_ACKNOWLEDGEMENTS, [orgId])) {
    const [datasetId, deliveryId, status, causeId, note, by, at, endedAt, endReason] = row.map(text);
    out.write(
      separator +
        JSON.stringify({ datasetId, deliveryId, status, causeId, note, by, at, endedAt, endReason }),
    );
    separator = ',\n';
    acknowledgements++;
    if (out.full) yield records;
  }
  out.write('\n],"syncOutages":[');
  separator = '\n';
  let syncOutages = 0;
  for (const row of rows(store, EXPORT_SYNC_OUTAGES, [orgId])) {
    const [sourceId, sourceName, lastSuccessAt, lostAt, regainedAt] = row.map(text);
    out.write(separator + JSON.stringify({ sourceId, sourceName, lastSuccessAt, lostAt, regainedAt }));
    separator = ',\n';
    syncOutages++;
    if (out.full) yield records;
  }
  out.write('\n],"incidents":[');
  const incidents = yield* exportIncidents(store, orgId, out, records);
  out.write('\n]}\n');
  return { timelineEntries, acknowledgements, syncOutages, incidents };
}

/** The incidents, one per line with its failures; returns how many. */
function* exportIncidents(
  store: Store,
  orgId: string,
  out: Pieces,
  records: number,
): Generator<number, number> {
  let separator = '\n';
  let count = 0;
  let incident: Record<string, unknown> | null = null;
  let failures: string[] = [];
  const flush = (): void => {
    if (incident === null) return;
    // `failures` last: the incident's fields as import lists them, then its failures as written.
    const head = JSON.stringify(incident);
    out.write(`${separator}${head.slice(0, -1)},"failures":[${failures.join(',')}]}`);
    separator = ',\n';
    count++;
  };
  for (const row of rows(store, EXPORT_INCIDENTS, [orgId])) {
    const [incidentId, causeId, title, firstFailureAt, lastFailureAt, openedAt, endedAt] = row
      .slice(0, 7)
      .map(text);
    if (incident === null || incident.incidentId !== incidentId) {
      flush();
      if (out.full) yield records;
      incident = { incidentId, causeId, title, firstFailureAt, lastFailureAt, openedAt, endedAt };
      failures = [];
    }
    const [datasetId, deliveryId, status, failureAt, learnedAt, failureEndedAt] = row.slice(7).map(text);
    failures.push(
      JSON.stringify({ datasetId, deliveryId, status, failureAt, learnedAt, endedAt: failureEndedAt }),
    );
  }
  flush();
  return count;
}
