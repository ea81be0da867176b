/** The history of sync cycles (docs/architecture.md#crawl): one row per crawl or poll, with its outcome and counts. */
import type { SyncCounts, SyncKind } from '../../../shared/sync';
import type { Store } from '../database';

export interface SyncRun {
  id: number;
  sourceId: string;
  orgId: string;
  kind: SyncKind;
  startedAt: string;
  endedAt: string | null;
  outcome: 'ok' | 'failed' | null;
  counts: SyncCounts | null;
  error: string | null;
}

/** Runs kept per source; older ones are dropped as new ones finish. */
const KEPT_RUNS = 500;

/**
 * Records a finished cycle (one write per cycle: a run in progress lives in the source's state, and a
 * write when it starts would cost a save of the whole database in the middle of the sync).
 */
export function recordSyncRun(
  store: Store,
  run: {
    sourceId: string;
    orgId: string;
    kind: SyncKind;
    startedAt: Date;
    endedAt: Date;
    outcome: 'ok' | 'failed';
    counts: SyncCounts;
    error?: string | null;
  },
): void {
  store.transaction(
    () => {
      store.run(
        `INSERT INTO sync_runs (source_id, org_id, kind, started_at, ended_at, outcome, counts, error)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          run.sourceId,
          run.orgId,
          run.kind,
          run.startedAt.toISOString(),
          run.endedAt.toISOString(),
          run.outcome,
          JSON.stringify(run.counts),
          run.error ?? null,
        ],
      );
      store.run(
        `DELETE FROM sync_runs WHERE source_id = ?1
           AND id <= (SELECT id FROM sync_runs WHERE source_id = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)`,
        [run.sourceId, KEPT_RUNS],
      );
    },
    { dataChange: false },
  );
}

function fromRow(row: Record<string, unknown>): SyncRun {
  return {
    id: Number(row.id),
    sourceId: String(row.source_id),
    orgId: String(row.org_id),
    kind: row.kind as SyncKind,
    startedAt: String(row.started_at),
    endedAt: row.ended_at === null ? null : String(row.ended_at),
    outcome: row.outcome === null ? null : (row.outcome as 'ok' | 'failed'),
    counts: row.counts === null ? null : (JSON.parse(String(row.counts)) as SyncCounts),
    error: row.error === null ? null : String(row.error),
  };
}

/** Newest first. */
export function recentSyncRuns(store: Store, sourceId: string, limit = 20): SyncRun[] {
  return store
    .all('SELECT * FROM sync_runs WHERE source_id = ? ORDER BY id DESC LIMIT ?', [sourceId, limit])
    .map(fromRow);
}

/** The newest run of the source that ended with this outcome. */
export function lastSyncRun(store: Store, sourceId: string, outcome: 'ok' | 'failed'): SyncRun | undefined {
  const row = store.get(
    'SELECT * FROM sync_runs WHERE source_id = ? AND outcome = ? ORDER BY id DESC LIMIT 1',
    [sourceId, outcome],
  );
  return row ? fromRow(row) : undefined;
}

/** Whether the org was ever mirrored by a complete crawl (the first crawl asks for the deep history). */
export function hasCompletedCrawl(store: Store, orgId: string): boolean {
  return (
    store.value<number>(
      "SELECT 1 FROM sync_runs WHERE org_id = ? AND kind = 'crawl' AND outcome = 'ok' LIMIT 1",
      [orgId],
    ) !== undefined
  );
}
