/** The remote's endpoints as the sync uses them: list pages (with the page-size fallback), one dataset, tasks. */
import type { TasksRecord } from '../../shared/schemas';
import { type RemoteClient, RemoteError } from './client';
import { PageMemory, PageSplitter } from './pageText';
import { type RawPage, readDatasetObject, readListPage, readTasksRecord } from './page';

export const REMOTE_PATHS = {
  list: '/v2/ops/health/datasets/deliveries',
  dataset: (datasetId: string) => `/v2/ops/health/datasets/${encodeURIComponent(datasetId)}/deliveries`,
  tasks: (deliveryId: string) => `/v2/ops/health/deliveries/${encodeURIComponent(deliveryId)}/tasks`,
} as const;

/** Largest page size to try, and the spec's default to fall back to when the remote refuses it. */
export const PAGE_SIZES = [1000, 50] as const;
/** The spec's default `latestDeliveriesCount`, which every remote must accept. */
const SPEC_DEFAULT_DELIVERIES = 10;

export interface ListQuery {
  filter?: string;
  latestDeliveriesCount: number;
}

export interface PageVisit {
  /** Valid until the visit ends: their memory then takes a later page. */
  items: RawPage['items'];
  /** 1-based. */
  page: number;
}

/**
 * Walks every page of the list, calling `visit` for each; the next page is requested while the current
 * one is visited. A page token seen before aborts the walk (a remote that loops would never end).
 */
export async function walkList(
  client: RemoteClient,
  query: ListQuery,
  visit: (page: PageVisit) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  let pageSize: number = PAGE_SIZES[0];
  let deliveries = query.latestDeliveriesCount;
  const memory = new PageMemory();
  const fetchPage = async (token: string): Promise<RawPage> => {
    const params: [string, string][] = [
      ['pageSize', String(pageSize)],
      ['latestDeliveriesCount', String(deliveries)],
    ];
    if (query.filter !== undefined) params.push(['filter', query.filter]);
    if (token !== '') params.push(['pageToken', token]);
    const splitter = await client.getStreamed(
      REMOTE_PATHS.list,
      params,
      signal,
      () => new PageSplitter(memory.take()),
    );
    return readListPage(splitter, client.host);
  };
  // A remote with lower limits answers 400: try the spec's default page size, then its default number of
  // deliveries (a deep first crawl that could never pass would block every crawl after it).
  const fallbacks = [
    () => (pageSize = PAGE_SIZES[1]),
    () => (deliveries = Math.min(deliveries, SPEC_DEFAULT_DELIVERIES)),
  ];
  const firstPage = async (): Promise<RawPage> => {
    for (;;) {
      try {
        return await fetchPage('');
      } catch (error) {
        const fallback = fallbacks.shift();
        if (!(error instanceof RemoteError) || error.kind !== 'rejected' || !fallback) throw error;
        fallback();
      }
    }
  };
  let current: RawPage = await firstPage();
  const seen = new Set<string>();
  for (let page = 1; ; page++) {
    const token = current.nextPageToken;
    if (token !== '' && seen.has(token)) {
      throw new RemoteError(
        'bad-response',
        `${client.host} sent page token "${token.slice(0, 24)}…" a second time: crawl aborted (the remote's paging loops)`,
      );
    }
    seen.add(token);
    const next = token === '' ? null : fetchPage(token);
    // Keep a failing prefetch from being reported as unhandled while this page is visited.
    next?.catch(() => {});
    await visit({ items: current.items, page });
    memory.give(current.bytes);
    if (next === null) return;
    current = await next;
  }
}

/** The dataset's record as the remote sent it (checked to be an object), or null when it is gone (404). */
export async function fetchDataset(
  client: RemoteClient,
  datasetId: string,
  latestDeliveriesCount: number,
  signal?: AbortSignal,
): Promise<Record<string, unknown> | null> {
  try {
    const body = await client.getJson(
      REMOTE_PATHS.dataset(datasetId),
      [['latestDeliveriesCount', String(latestDeliveriesCount)]],
      signal,
    );
    return readDatasetObject(body, client.host);
  } catch (error) {
    if (error instanceof RemoteError && error.kind === 'not-found') return null;
    throw error;
  }
}

export async function fetchTasks(
  client: RemoteClient,
  deliveryId: string,
  signal?: AbortSignal,
): Promise<TasksRecord | null> {
  try {
    const body = await client.getJson(
      REMOTE_PATHS.tasks(deliveryId),
      [['includeRunDetails', 'true']],
      signal,
    );
    return readTasksRecord(body, client.host);
  } catch (error) {
    if (error instanceof RemoteError && error.kind === 'not-found') return null;
    throw error;
  }
}
