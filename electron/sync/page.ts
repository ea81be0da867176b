/**
 * What a remote answer holds, checked before anything is stored: a list page must be an object with an
 * `items` array of objects and a string (or absent) `nextPageToken`; anything else fails the attempt
 * (docs/architecture.md#sync). Within records, unknown fields are ignored, bad values become null and a record
 * without a `datasetId` is skipped and counted.
 */
import type { DatasetRecord, TasksRecord } from '../../shared/schemas';
import { lenientContext, normalizeDatasetRecord, normalizeTasksRecord } from '../store/snapshot/normalize';
import { RemoteError, parseJson } from './client';
import { type PageBytes, type PageSplitter, utf8Text } from './pageText';

export interface RawPage {
  /** Each item's JSON in UTF-8: parsed one at a time, in slices (see pageText.ts). */
  items: Uint8Array[];
  nextPageToken: string;
  /** The memory the items are views of. */
  bytes: PageBytes;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const shapeError = (host: string, what: string): RemoteError =>
  new RemoteError('bad-response', `${host} sent a list page of the wrong shape: ${what}`);

/** The page read by a splitter as it arrived (see pageText.ts). */
export function readListPage(splitter: PageSplitter, host: string): RawPage {
  const split = splitter.end();
  const body = parseJson(split?.envelope ?? splitter.text, host);
  if (!isObject(body)) throw shapeError(host, 'expected a JSON object');
  const { items, nextPageToken } = body;
  if (nextPageToken !== undefined && nextPageToken !== null && typeof nextPageToken !== 'string') {
    throw shapeError(host, '"nextPageToken" is not a string');
  }
  let itemBytes: Uint8Array[];
  if (split?.items) itemBytes = split.items;
  else if (Array.isArray(items)) itemBytes = items.map((item) => Buffer.from(JSON.stringify(item)));
  // Some JSON APIs leave out empty lists: no "items" is an empty page.
  else if (items === undefined) itemBytes = [];
  else throw shapeError(host, '"items" is not an array');
  return { items: itemBytes, nextPageToken: nextPageToken ?? '', bytes: splitter.bytes };
}

/** One item of a page: a JSON object, or the page is of the wrong shape. */
export function parseItem(bytes: Uint8Array, host: string): Record<string, unknown> {
  const text = utf8Text(bytes);
  let item: unknown;
  try {
    item = JSON.parse(text);
  } catch {
    throw new RemoteError('bad-response', `${host} sent a list page that is not valid JSON`);
  }
  if (!isObject(item)) throw shapeError(host, `an item is not an object: ${text.trim().slice(0, 40)}`);
  return item;
}

export interface NormalizedRecord {
  /** null: skipped, it has no datasetId. */
  record: DatasetRecord | null;
  /** Values that could not be used and became null. */
  invalidValues: number;
}

export function normalizeRemoteRecord(item: unknown): NormalizedRecord {
  const ctx = lenientContext();
  const record = normalizeDatasetRecord(ctx, item, 'record');
  return { record, invalidValues: record === null ? 0 : ctx.problems.length };
}

/** A single-dataset answer: the record itself (not a page), normalized by the caller with the others. */
export function readDatasetObject(body: unknown, host: string): Record<string, unknown> {
  if (!isObject(body)) {
    throw new RemoteError('bad-response', `${host} sent a dataset answer that is not a JSON object`);
  }
  return body;
}

export function readTasksRecord(body: unknown, host: string): TasksRecord {
  const record = isObject(body) ? normalizeTasksRecord(lenientContext(), body, 'tasks') : null;
  if (record === null)
    throw new RemoteError('bad-response', `${host} sent a tasks answer that is not a JSON object`);
  return record;
}
