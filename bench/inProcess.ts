/**
 * In-process figures: the query layer producing the exact bodies the API sends (list pages built from
 * the database, not served from the page cache), and persisting a small change.
 */
import { listIncidents } from '../electron/query/incidents';
import { DEFAULT_INCIDENT_GAP_MS, refreshIncidents } from '../electron/store/schema/incidents';
import { getDataset } from '../electron/query/dataset';
import { type ListRequest, buildListPage } from '../electron/query/list';
import { parseSelection } from '../electron/query/selection';
import { getDeliveryTasks } from '../electron/query/tasks';
import type { Store } from '../electron/store/database';
import { type Summary, spread, summarize, timeSync } from './stats';

const ITERATIONS = 200;
/** Causes read the org's troubled datasets whole: fewer runs (each is tens of ms at 10k). */
const CAUSE_ITERATIONS = 20;
const WARMUP = 20;
export const PAGE_SIZE = 50;
export const LATEST_DELIVERIES = 10;

export interface ListFigures {
  first: Summary;
  /** Pages reached with page tokens from the second half of a forward walk over the whole list. */
  deep: Summary;
  pages: number;
  walkMs: number;
}

function listRequest(
  orgId: string,
  sortText: string,
  pageToken: string | null,
  filters: readonly string[] = [],
): ListRequest {
  return {
    ...parseSelection({ orgId, filters, sort: sortText }),
    pageSize: PAGE_SIZE,
    pageToken,
    latestDeliveriesCount: LATEST_DELIVERIES,
  };
}

const TAIL = /"nextPageToken":"([^"]*)","previousPageToken":"[^"]*","kind":"ops#datasetHealthList"}$/;

function nextToken(body: Buffer): string {
  // The tail is ASCII: a character cut at the slice's start does not matter.
  const match = TAIL.exec(body.subarray(-2000).toString('utf8'));
  if (!match) throw new Error('list body does not end with its page tokens');
  return match[1]!;
}

export function measureList(store: Store, orgId: string, size: number, sortText: string): ListFigures {
  const first = summarize(
    timeSync(ITERATIONS, WARMUP, () => buildListPage(store, listRequest(orgId, sortText, null))),
  );

  const tokens: string[] = [];
  const walkStarted = performance.now();
  let token = nextToken(buildListPage(store, listRequest(orgId, sortText, null)));
  while (token !== '') {
    tokens.push(token);
    token = nextToken(buildListPage(store, listRequest(orgId, sortText, token)));
  }
  const walkMs = performance.now() - walkStarted;
  const pages = tokens.length + 1;
  if (pages !== Math.max(1, Math.ceil(size / PAGE_SIZE))) {
    throw new Error(`walking '${sortText || 'default'}' order took ${pages} pages for ${size} datasets`);
  }

  const deepTokens = spread(tokens.slice(Math.floor(tokens.length / 2)), ITERATIONS);
  const deep = summarize(
    timeSync(ITERATIONS, WARMUP, (i) =>
      buildListPage(store, listRequest(orgId, sortText, deepTokens[i % deepTokens.length]!)),
    ),
  );
  return { first, deep, pages, walkMs };
}

/**
 * A filtered first page: an exact filter on a near-unique field (a delivery id) and on a shared one (a
 * supplier), values taken from across the org. Neither may cost more as the org grows.
 */
export function measureFiltered(store: Store, orgId: string, field: 'deliveryId' | 'supplierId'): Summary {
  const column = field === 'deliveryId' ? 'delivery_id' : 'supplier_id';
  const values = spread(
    store.column<string>(
      `SELECT DISTINCT ${column} FROM datasets WHERE org_id = ? AND ${column} IS NOT NULL`,
      [orgId],
    ),
    ITERATIONS,
  );
  return summarize(
    timeSync(ITERATIONS, WARMUP, (i) => {
      const filter = `${field}.eq.${values[i % values.length]!}`;
      return buildListPage(store, listRequest(orgId, '', null, [filter]));
    }),
  );
}

export function measureDataset(store: Store, orgId: string): Summary {
  const ids = spread(
    store.column<string>('SELECT dataset_id FROM datasets WHERE org_id = ? ORDER BY pk', [orgId]),
    ITERATIONS,
  );
  if (ids.length === 0) throw new Error('the org has no datasets');
  return summarize(
    timeSync(ITERATIONS, WARMUP, (i) => {
      const json = getDataset(store, {
        orgId,
        datasetId: ids[i % ids.length]!,
        latestDeliveriesCount: LATEST_DELIVERIES,
        includeRunDetails: false,
      });
      if (json === null) throw new Error(`dataset ${ids[i % ids.length]} not found`);
    }),
  );
}

/** Delivery ids of FAILED deliveries whose tasks are stored, spread over the org. */
export function failedDeliveriesWithTasks(store: Store, orgId: string): string[] {
  return spread(
    store.column<string>(
      `SELECT t.delivery_id FROM delivery_tasks t WHERE t.org_id = ?
         AND EXISTS (SELECT 1 FROM events e WHERE e.delivery_id = t.delivery_id AND e.status = 'FAILED')
       ORDER BY t.delivery_id`,
      [orgId],
    ),
    ITERATIONS,
  );
}

export function measureTasks(store: Store, orgId: string): Summary {
  const ids = failedDeliveriesWithTasks(store, orgId);
  if (ids.length === 0) throw new Error('no FAILED delivery with tasks in the demo org');
  return summarize(
    timeSync(ITERATIONS, WARMUP, (i) => {
      const result = getDeliveryTasks(store, orgId, ids[i % ids.length]!, false);
      if (!result.found) throw new Error(`tasks of ${ids[i % ids.length]} not found (${result.reason})`);
    }),
  );
}

/** Triage's engine side: every live incident of the org with its datasets and acknowledgements, as the view asks. */
export function measureCauses(store: Store, orgId: string): Summary & { causes: number; datasets: number } {
  let causes = 0;
  let datasets = 0;
  const summary = summarize(
    timeSync(CAUSE_ITERATIONS, 2, () => {
      const listed = listIncidents(store, orgId);
      causes = listed.length;
      datasets = listed.reduce((sum, incident) => sum + incident.count, 0);
    }),
  );
  if (causes === 0) throw new Error('the demo org has no FAILED or MISSING dataset');
  return { ...summary, causes, datasets };
}

class Rollback extends Error {}

/**
 * The incidents' grouping, from nothing: every troubled dataset's failure found, timed and grouped, as
 * the first sync's commit (or an import) does it. Each run is rolled back, so the next starts afresh.
 */
export function measureIncidentGrouping(
  store: Store,
  orgId: string,
  now: Date,
): Summary & { incidents: number; failures: number } {
  let result = { opened: 0, joined: 0 };
  const summary = summarize(
    timeSync(CAUSE_ITERATIONS, 1, () => {
      try {
        store.transaction(() => {
          store.run('DELETE FROM incident_failures WHERE org_id = ?', [orgId]);
          store.run('DELETE FROM incidents WHERE org_id = ?', [orgId]);
          result = refreshIncidents(store, orgId, { now, gapMs: DEFAULT_INCIDENT_GAP_MS });
          throw new Rollback();
        });
      } catch (error) {
        if (!(error instanceof Rollback)) throw error;
      }
    }),
  );
  return { ...summary, incidents: result.opened, failures: result.opened + result.joined };
}

/**
 * A small change committed and made durable: from the commit until `flush()` resolves (its journal
 * record appended and fsynced), on the store's real data dir.
 */
export async function measurePersist(store: Store, runs: number): Promise<Summary> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    store.run("INSERT OR REPLACE INTO meta(key, value) VALUES('bench', ?)", [String(i)]);
    await store.flush();
    samples.push(performance.now() - started);
  }
  return summarize(samples);
}
