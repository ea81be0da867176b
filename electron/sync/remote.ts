/** The remote's endpoints as the sync uses them: list pages (with the page-size fallback), one dataset, tasks. */
import type { TasksRecord } from '../../shared/schemas';
import { type RemoteClient, RemoteError } from './client';
import { PageSplitter } from './pageText';
import { type RawPage, readDatasetObject, readListPage, readTasksRecord } from './page';

export const REMOTE_PATHS = {
  list: '/v2/ops/health/datasets/deliveries',
  dataset: (datasetId: string) => `/v2/ops/health/datasets/${encodeURIComponent(datasetId)}/deliveries`,
  tasks: (deliveryId: string) => `/v2/ops/health/deliveries/${encodeURIComponent(deliveryId)}/tasks`,
} as const;

/** Largest page size to try, and the spec's default to fall back to when the remote refuses it. */
export const PAGE_SIZES = [1000, 50] as const;

export interface ListQuery {
  filter?: string;
  latestDeliveriesCount: number;
}

export interface PageVisit {
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
  const fetchPage = async (token: string): Promise<RawPage> => {
    const params: [string, string][] = [
      ['pageSize', String(pageSize)],
      ['latestDeliveriesCount', String(query.latestDeliveriesCount)],
    ];
    if (query.filter !== undefined) params.push(['filter', query.filter]);
    if (token !== '') params.push(['pageToken', token]);
    const splitter = await client.getStreamed(REMOTE_PATHS.list, params, signal, () => new PageSplitter());
    return readListPage(splitter, client.host);
  };
  let current: RawPage;
  try {
    current = await fetchPage('');
  } catch (error) {
    // A remote that caps page sizes lower answers 400: walk with the spec's default instead.
    if (!(error instanceof RemoteError) || error.kind !== 'rejected') throw error;
    pageSize = PAGE_SIZES[1];
    current = await fetchPage('');
  }
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
