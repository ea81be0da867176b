/**
 * The org's delivery history in memory (docs/architecture.md#the-on-call-layer): every dataset's facts and its retained deliveries
 * as typed arrays, kept current by re-reading only the datasets whose stored record changed since the
 * last look (a poll changes a handful; a 10k org with 100 deliveries each is read once, in slices that
 * leave the event loop free between them). The deadline clock, Upcoming, overdue and the reliability
 * statistics all read from here, so none of them runs SQL per look.
 */
import { type DatasetFacts, eachDelivery, orgDatasetFacts } from '../query/history';
import type { DeadlineConfig } from '../../shared/schemas';
import type { Store } from '../store/database';

/** Delivery statuses as small numbers (typed arrays hold them). */
export const STATUS_CODE = {
  UNKNOWN: 0,
  HEALTHY: 1,
  DELIVERED_LATE: 2,
  MISSING: 3,
  FAILED: 4,
  IN_PROGRESS: 5,
} as const;
export type StatusCode = (typeof STATUS_CODE)[keyof typeof STATUS_CODE];
export const STATUS_NAME: readonly (string | null)[] = [
  null,
  'HEALTHY',
  'DELIVERED_LATE',
  'MISSING',
  'FAILED',
  'IN_PROGRESS',
];

export function statusCode(status: string | null): StatusCode {
  const code = status === null ? undefined : (STATUS_CODE as Record<string, StatusCode>)[status];
  return code ?? STATUS_CODE.UNKNOWN;
}

/** A settled delivery counts in rates and habits; one in progress (or of unknown status) waits. */
export const isSettled = (code: number): boolean => code >= STATUS_CODE.HEALTHY && code <= STATUS_CODE.FAILED;

/** One dataset's history: its facts and its deliveries, newest first (times in epoch ms, NaN unknown). */
export interface DatasetHistory extends DatasetFacts {
  deadlines: Float64Array;
  delivered: Float64Array;
  statuses: Uint8Array;
  /** The deadline of its newest settled delivery (NaN: none): deadlines after it are not verified yet. */
  latestSettledDeadline: number;
}

export interface OrgHistory {
  orgId: string;
  /** The store's data revision this history was read at. */
  revision: string;
  /** In the store's order (by pk). */
  datasets: DatasetHistory[];
  byId: Map<string, DatasetHistory>;
}

/** Datasets whose deliveries are read in one statement, between two turns of the event loop (100 datasets × 100 deliveries: a few tens of ms). */
const SLICE = 100;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function historyOf(
  facts: DatasetFacts,
  rows: { deadline: number; delivered: number; status: number }[],
): DatasetHistory {
  const count = rows.length;
  const history: DatasetHistory = {
    ...facts,
    deadlines: new Float64Array(count),
    delivered: new Float64Array(count),
    statuses: new Uint8Array(count),
    latestSettledDeadline: NaN,
  };
  rows.forEach((row, i) => {
    history.deadlines[i] = row.deadline;
    history.delivered[i] = row.delivered;
    history.statuses[i] = row.status;
    if (Number.isNaN(history.latestSettledDeadline) && isSettled(row.status))
      history.latestSettledDeadline = row.deadline;
  });
  return history;
}

/** Reads the deliveries of `changed` (sorted by pk), a slice at a time. */
async function readDeliveries(
  store: Store,
  changed: DatasetFacts[],
  between: () => Promise<void>,
): Promise<DatasetHistory[]> {
  const read: DatasetHistory[] = [];
  for (let start = 0; start < changed.length; start += SLICE) {
    if (start > 0) await between();
    const slice = changed.slice(start, start + SLICE);
    const wanted = new Map(
      slice.map((facts) => [facts.pk, [] as { deadline: number; delivered: number; status: number }[]]),
    );
    // Each slice waits for a chunked sync commit in progress: never half a commit.
    await store.whenReadable(() =>
      eachDelivery(
        store,
        slice.map((facts) => facts.pk),
        (pk, deadline, delivered, status) => {
          wanted.get(pk)?.push({ deadline, delivered, status: statusCode(status) });
        },
      ),
    );
    for (const facts of slice) read.push(historyOf(facts, wanted.get(facts.pk)!));
  }
  return read;
}

export interface HistoryIndexOptions {
  /** Between two slices of a large read (default: the next turn of the event loop). */
  between?: () => Promise<void>;
}

export class HistoryIndex {
  private readonly orgs = new Map<string, OrgHistory>();
  private readonly pending = new Map<string, Promise<OrgHistory>>();
  private readonly between: () => Promise<void>;
  /** One object per distinct deadline config, across reads. */
  private readonly configs = new Map<string, DeadlineConfig>();

  constructor(
    private readonly store: Store,
    options: HistoryIndexOptions = {},
  ) {
    this.between = options.between ?? nextTurn;
  }

  /** The org's history as of the store's current data (re-reading only what changed since the last look). */
  async current(orgId: string): Promise<OrgHistory> {
    const held = this.orgs.get(orgId);
    if (held !== undefined && held.revision === this.store.dataRevision) return held;
    // One read at a time per org: a second caller waits for the first and then looks again.
    const running = this.pending.get(orgId);
    if (running !== undefined) {
      await running.catch(() => undefined);
      return this.current(orgId);
    }
    const reading = this.read(orgId, held).finally(() => this.pending.delete(orgId));
    this.pending.set(orgId, reading);
    return reading;
  }

  /** The history last read, without looking for changes (null: never read). */
  held(orgId: string): OrgHistory | null {
    return this.orgs.get(orgId) ?? null;
  }

  /** Forgets an org (it was removed), so its memory goes. */
  forget(orgId: string): void {
    this.orgs.delete(orgId);
  }

  private async read(orgId: string, held: OrgHistory | undefined): Promise<OrgHistory> {
    const [revision, unsorted] = await this.store.whenReadable(
      () => [this.store.dataRevision, orgDatasetFacts(this.store, orgId, this.configs)] as const,
    );
    const facts = [...unsorted].sort((a, b) => a.pk - b.pk);
    const changed = facts.filter((fact) => {
      const before = held?.byId.get(fact.datasetId);
      return before === undefined || before.pk !== fact.pk || before.signature !== fact.signature;
    });
    const fresh = new Map((await readDeliveries(this.store, changed, this.between)).map((h) => [h.pk, h]));
    const datasets = facts.map((fact) => {
      const reread = fresh.get(fact.pk);
      if (reread !== undefined) return reread;
      // Unchanged deliveries; the facts (name, supplier…) are taken anew all the same.
      const before = held!.byId.get(fact.datasetId)!;
      return { ...before, ...fact };
    });
    const history: OrgHistory = {
      orgId,
      // Read in slices: a commit between them leaves this history behind, so the next look reads again.
      revision: this.store.dataRevision === revision ? revision : `${revision}~`,
      datasets,
      byId: new Map(datasets.map((dataset) => [dataset.datasetId, dataset])),
    };
    this.orgs.set(orgId, history);
    return history;
  }
}
