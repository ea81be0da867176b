/**
 * What an import has read of its file, kept in the database rather than in memory (docs/storage.md
 * "Memory"): a working table, `import_datasets`, with a row per dataset record of the file (its index,
 * its events' count and oldest deadline, its timeline), made in the import's transaction and dropped
 * at its end (a refused import rolls it back with the rest), and the rows the import writes anyway
 * (`delivery_tasks`: each written by this import has a rowid above those stored before it).
 */
import type { DatasetRecord } from '../../../shared/schemas';
import type { Store } from '../database';
import { KeyFilter } from './keyFilter';
import type { KeyedMember, SnapshotKeys } from './snapshotKeys';

const CREATE = `
CREATE TABLE import_datasets (
  dataset_id TEXT PRIMARY KEY,
  file_index INTEGER NOT NULL,
  -- Its row in datasets, and the record's own deliveryId: read here, not from the datasets' pages.
  pk INTEGER NOT NULL,
  delivery_id TEXT,
  events INTEGER NOT NULL,
  -- The oldest deadline of its events ('' when none has one). Canonical times sort as strings.
  oldest TEXT NOT NULL,
  -- 1 once the file's timeline of it is written; its earliest entry (null: none).
  timeline INTEGER NOT NULL DEFAULT 0,
  timeline_from TEXT
) WITHOUT ROWID`;

/** The file's datasets and keys as the import has written them. */
export class FileLedger implements SnapshotKeys {
  /** The largest rowid of `delivery_tasks` before the import: the file's tasks are above it. */
  readonly tasksAbove: number;
  /**
   * Keys read but not written yet: tasks on their way through the packer's worker, timelines held
   * until the file's datasets are read. As many as are in flight, not as the file holds.
   */
  private readonly pending: Record<KeyedMember, Set<string>> = { tasks: new Set(), timeline: new Set() };
  /** Says which keys were surely not read before, so that most are never looked up. */
  private readonly seen = new KeyFilter();

  constructor(
    private readonly store: Store,
    private readonly orgId: string,
  ) {
    store.run(CREATE);
    this.tasksAbove = Number(store.value<number>('SELECT coalesce(max(rowid), 0) FROM delivery_tasks'));
  }

  /** Notes dataset record `index` of the file, written as row `pk` (its datasetId is not noted yet). */
  noteDataset(record: DatasetRecord, index: number, pk: number): void {
    let oldest = '';
    for (const { deliveryDeadline } of record.deliveryEventList)
      if (deliveryDeadline !== null && (oldest === '' || deliveryDeadline < oldest))
        oldest = deliveryDeadline;
    this.store.run(
      `INSERT INTO import_datasets (dataset_id, file_index, pk, delivery_id, events, oldest)
       VALUES (?, ?, ?, ?, ?, ?)`,
      [record.datasetId, index, pk, record.deliveryId, record.deliveryEventList.length, oldest],
    );
  }

  /** A dataset of the file: its row in datasets and its record's own deliveryId. */
  dataset(datasetId: string): { pk: number; deliveryId: string | null } | undefined {
    const row = this.store.get('SELECT pk, delivery_id FROM import_datasets WHERE dataset_id = ?', [
      datasetId,
    ]);
    return row === undefined
      ? undefined
      : { pk: Number(row.pk), deliveryId: row.delivery_id as string | null };
  }

  /** The index of the file's dataset record of this id, if the import has written it. */
  index(datasetId: string): number | undefined {
    return this.store.value<number>('SELECT file_index FROM import_datasets WHERE dataset_id = ?', [
      datasetId,
    ]);
  }

  /** The file's timeline of a dataset of the file is written; `earliest` is its first entry's time. */
  timeline(datasetId: string, earliest: string | null): void {
    this.store.run('UPDATE import_datasets SET timeline = 1, timeline_from = ? WHERE dataset_id = ?', [
      earliest,
      datasetId,
    ]);
    this.pending.timeline.delete(datasetId);
  }

  /** The tasks of a delivery are written (as a new row: `writePackedTasks` with `newRow`). */
  tasksWritten(deliveryId: string): void {
    this.pending.tasks.delete(deliveryId);
  }

  /** A key of `tasks` or `timeline` read: false when the file gave it before (SnapshotSplitter). */
  note(member: KeyedMember, key: string): boolean {
    const pending = this.pending[member];
    const maybe = this.seen.add(member === 'tasks' ? 0 : 1, key);
    if (maybe && (pending.has(key) || this.written(member, key))) return false;
    pending.add(key);
    return true;
  }

  private written(member: KeyedMember, key: string): boolean {
    if (member === 'timeline')
      return this.store.value('SELECT timeline FROM import_datasets WHERE dataset_id = ?', [key]) === 1;
    return (
      this.store.value('SELECT 1 FROM delivery_tasks WHERE org_id = ? AND delivery_id = ? AND rowid > ?', [
        this.orgId,
        key,
        this.tasksAbove,
      ]) !== undefined
    );
  }

  /**
   * Calls `visit` with each dataset of the file whose events are over `retention`, before the import
   * trims them (as a sync does, but once the checks that need every delivery of the file are made).
   */
  overRetention(retention: number, visit: (datasetId: string) => void): void {
    this.store.eachValue<string>(
      'SELECT dataset_id FROM import_datasets WHERE events > ?',
      [retention],
      visit,
    );
  }

  /**
   * Calls `visit` with each dataset whose timeline may reach back past the deliveries kept beside it:
   * every one, but those whose events are all kept and none due after the timeline's first entry.
   */
  timelinesToPrune(retention: number, visit: (datasetId: string) => void): void {
    this.store.eachValue<string>(
      `SELECT dataset_id FROM import_datasets WHERE timeline_from IS NOT NULL
         AND NOT (events <= ? AND (oldest = '' OR timeline_from >= oldest))`,
      [retention],
      visit,
    );
  }

  /** The working table goes (its pages are free for the next write). */
  drop(): void {
    this.store.run('DROP TABLE import_datasets');
  }
}
