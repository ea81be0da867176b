/**
 * The import's rules about deliveries across the file's dataset records, as SQL over the rows it has
 * written (events, datasets, and `import_datasets` of fileLedger.ts), so that nothing in memory grows
 * with the file (docs/storage.md "Memory"): a delivery under one dataset of the file, and not under a
 * dataset of the org the file leaves as it is; the dataset of the file a delivery belongs to (the
 * knowledge's checks); tasks of a delivery that the file or the org has.
 *
 * An event's place in its record is read back from its `seq`: a record's events number down its list
 * (tables/datasetWriter.ts), and the import keeps every event of the file until its checks are made.
 * The queries read through `events_by_delivery` and `datasets_delivery`: call them once those exist
 * (an import into an empty store builds them once its datasets are written).
 */
import type { SqlValue } from 'sql.js';
import type { Store } from '../database';
import { type Mention, RECORD, type RepeatedDelivery, before, mentionPath } from './fileChecks';
import type { FileLedger } from './fileLedger';
import { shortQuote } from './importRules';
import type { DeliveryOwner } from './knowledgeWriter';

/** Where a delivery is named among the org's datasets: in the file (`file` its index) or not. */
interface Named {
  file: number | null;
  datasetPk: number;
  /** The event's `seq`; null for the record's own `deliveryId`. */
  seq: number | null;
  datasetId: string;
}

/** A problem of the file, and where it is. */
interface Found {
  at: Mention;
  message: string;
}

/** Every place the org names a delivery, events first (UNION ALL keeps the order of its parts). */
const NAMED = `
SELECT f.file_index, e.dataset_pk, e.seq, d.dataset_id
  FROM events e CROSS JOIN datasets d ON d.pk = e.dataset_pk
  LEFT JOIN import_datasets f ON f.dataset_id = d.dataset_id
 WHERE e.delivery_id = ?1 AND d.org_id = ?2
UNION ALL
SELECT f.file_index, d.pk, NULL, d.dataset_id
  FROM datasets d LEFT JOIN import_datasets f ON f.dataset_id = d.dataset_id
 WHERE d.org_id = ?2 AND d.delivery_id = ?1`;

/**
 * Deliveries named by two datasets or more of the org: few or none, each looked at with NAMED. Two of
 * a dataset's events never name one delivery (events_by_delivery is unique), so a delivery on two
 * event rows is on two datasets. The events are those of every org: where another org has datasets,
 * each row's dataset is looked up (orgs mirroring one remote share every delivery id).
 */
const TWICE_IN_EVENTS = {
  alone: `SELECT delivery_id FROM events WHERE delivery_id IS NOT NULL
          GROUP BY delivery_id HAVING count(*) > 1`,
  among: `SELECT e.delivery_id FROM events e CROSS JOIN datasets d ON d.pk = e.dataset_pk
          WHERE e.delivery_id IS NOT NULL AND d.org_id = ?1 GROUP BY e.delivery_id HAVING count(*) > 1`,
};
const TWICE = [
  `SELECT delivery_id FROM datasets WHERE org_id = ?1 AND delivery_id IS NOT NULL
   GROUP BY delivery_id HAVING count(*) > 1`,
  `SELECT d.delivery_id FROM datasets d WHERE d.org_id = ?1 AND d.delivery_id IS NOT NULL
     AND EXISTS (SELECT 1 FROM events e CROSS JOIN datasets o ON o.pk = e.dataset_pk
                 WHERE e.delivery_id = d.delivery_id AND e.dataset_pk <> d.pk AND o.org_id = ?1)`,
];
/** Another org has datasets. */
const OTHER_ORGS = `SELECT 1 FROM orgs o WHERE o.id <> ?1
  AND EXISTS (SELECT 1 FROM datasets WHERE org_id = o.id) LIMIT 1`;

export class DeliveryChecks {
  constructor(
    private readonly store: Store,
    private readonly orgId: string,
    private readonly file: FileLedger,
  ) {}

  /**
   * One look at every delivery the org names twice or more: the first, in file order, that two
   * datasets of the file name (`inFile`), and the first of the file that a dataset the file does not
   * replace holds too (`elsewhere`). Those datasets are untouched by the import, so what they hold now
   * is what they held before it.
   */
  across(): { inFile: string | null; elsewhere: string | null } {
    let inFile: Found | null = null;
    let elsewhere: Found | null = null;
    const earliest = (found: Found | null, next: Found): Found =>
      found === null || before(next.at, found.at) ? next : found;
    const alone = this.store.value(OTHER_ORGS, [this.orgId]) === undefined;
    const queries: [string, SqlValue[]][] = [
      alone ? [TWICE_IN_EVENTS.alone, []] : [TWICE_IN_EVENTS.among, [this.orgId]],
      ...TWICE.map((sql): [string, SqlValue[]] => [sql, [this.orgId]]),
    ];
    for (const [sql, params] of queries) {
      this.store.eachValue<string>(sql, params, (deliveryId) => {
        const named = this.named(deliveryId);
        const file = named.filter((n) => n.file !== null);
        if (file.length === 0) return;
        const first = this.mention(file.reduce((a, b) => (this.sooner(b, a) ? b : a)));
        const other = file
          .filter((n) => n.file !== first.dataset)
          .reduce<Named | null>((a, b) => (a === null || this.sooner(b, a) ? b : a), null);
        if (other !== null) {
          const at = this.mention(other);
          inFile = earliest(inFile, {
            at,
            message: `${mentionPath(at)}: delivery ${shortQuote(deliveryId)} also belongs to ${mentionPath(first)}`,
          });
          return;
        }
        const kept = named.find((n) => n.file === null);
        if (kept === undefined) return;
        elsewhere = earliest(elsewhere, {
          at: first,
          message: `${mentionPath(first)}: delivery ${shortQuote(deliveryId)} is already stored under dataset ${shortQuote(kept.datasetId)} of org '${this.orgId}'`,
        });
      });
    }
    const message = (found: Found | null): string | null => found?.message ?? null;
    return { inFile: message(inFile), elsewhere: message(elsewhere) };
  }

  /**
   * For a record refused for a delivery it names twice: the first of its events before that one whose
   * delivery an earlier dataset of the file has (a problem that comes first in the file), if any.
   */
  beforeRepeat(problem: RepeatedDelivery): string | null {
    for (const [event, deliveryId] of problem.earlier) {
      const owner = this.owner(deliveryId);
      if (owner === undefined) continue;
      return `$.datasets[${problem.record}].deliveryEventList[${event}].deliveryId: delivery ${shortQuote(deliveryId)} also belongs to ${owner.path}`;
    }
    return null;
  }

  /**
   * The dataset of the file a delivery belongs to, and where the file first says so (once the checks
   * across datasets found nothing: no two datasets of the file name one delivery). `likely`, the
   * dataset the knowledge names (its timeline's, its acknowledgement's), is asked first: a look at the
   * working table and an index rather than at the datasets' rows (sql.js reads those a page at a time,
   * tens of microseconds each).
   */
  owner(deliveryId: string, likely?: string): DeliveryOwner | undefined {
    const dataset = likely === undefined ? undefined : this.file.dataset(likely);
    const named = (): Named[] => this.named(deliveryId).filter((n) => n.file !== null);
    if (
      dataset !== undefined &&
      (dataset.deliveryId === deliveryId ||
        this.store.value('SELECT 1 FROM events WHERE delivery_id = ? AND dataset_pk = ?', [
          deliveryId,
          dataset.pk,
        ]) !== undefined)
    )
      return this.owned(likely!, named);
    const file = named();
    if (file.length === 0) return undefined;
    return this.owned(file[0]!.datasetId, () => file);
  }

  /** The deliveries a dataset of the file has: its events' and its record's own (empty if none). */
  of(datasetId: string): ReadonlySet<string> {
    const dataset = this.file.dataset(datasetId);
    if (dataset === undefined) return new Set();
    const own = new Set(
      this.store.column<string>(
        'SELECT delivery_id FROM events WHERE dataset_pk = ? AND delivery_id IS NOT NULL',
        [dataset.pk],
      ),
    );
    if (dataset.deliveryId !== null) own.add(dataset.deliveryId);
    return own;
  }

  /** An owner whose path (for messages only) is looked for when it is asked for. */
  private owned(datasetId: string, named: () => Named[]): DeliveryOwner {
    const mention = (): Mention => this.mention(named().reduce((a, b) => (this.sooner(b, a) ? b : a)));
    return {
      datasetId,
      get path() {
        return mentionPath(mention());
      },
    };
  }

  /**
   * The first tasks record of the file (in file order: the import writes them in order, each as a new
   * row above `tasksAbove`) of a delivery that no dataset of the file or of the org has.
   */
  tasksWithoutDelivery(tasksAbove: number): string | null {
    const deliveryId = this.store.value<string>(
      // CROSS JOIN keeps the delivery index first: the planner would otherwise walk the org's datasets.
      `SELECT delivery_id FROM delivery_tasks t WHERE t.org_id = ?1 AND t.rowid > ?2
         AND NOT EXISTS (SELECT 1 FROM events e CROSS JOIN datasets d ON d.pk = e.dataset_pk
                         WHERE e.delivery_id = t.delivery_id AND d.org_id = ?1)
         AND NOT EXISTS (SELECT 1 FROM datasets WHERE org_id = ?1 AND delivery_id = t.delivery_id)
       ORDER BY t.rowid LIMIT 1`,
      [this.orgId, tasksAbove],
    );
    if (deliveryId === undefined) return null;
    return `$.tasks[${JSON.stringify(deliveryId)}]: no dataset of the file or of org '${this.orgId}' has a delivery with this id`;
  }

  private named(deliveryId: string): Named[] {
    const rows: Named[] = [];
    this.store.eachRow(NAMED, [deliveryId, this.orgId], ([file, datasetPk, seq, datasetId]: SqlValue[]) =>
      rows.push({
        file: file === null ? null : Number(file),
        datasetPk: Number(datasetPk),
        seq: seq === null ? null : Number(seq),
        datasetId: String(datasetId),
      }),
    );
    return rows;
  }

  /**
   * Whether `a` comes before `b` in the file, both of it. Of one dataset, its events come before its
   * own deliveryId, and no two of its events name one delivery: the event's place is not needed.
   */
  private sooner(a: Named, b: Named): boolean {
    if (a.file !== b.file) return a.file! < b.file!;
    return a.seq !== null && b.seq === null;
  }

  private mention(named: Named): Mention {
    if (named.seq === null) return { dataset: named.file!, event: RECORD };
    const last = this.store.value<number>('SELECT max(seq) FROM events WHERE dataset_pk = ?', [
      named.datasetPk,
    ]);
    return { dataset: named.file!, event: Number(last) - named.seq };
  }
}
