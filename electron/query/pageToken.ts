/**
 * Keyset page tokens (docs/api.md#list): an opaque, signed position in one query's order. A token names
 * the sort-key values of the row it starts after (next) or before (previous), and is bound to the org,
 * filters and sort it was issued for; anything else, altered or foreign, is refused. A position whose
 * values are long (names and ids may run to kilobytes) is carried compactly instead, as the row's key and
 * a digest of its values, so a token's length never depends on what is stored (issue 15).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Store } from '../store/database';
import { InvalidArgument } from './errors';

export type Cursor = readonly (string | number)[];

export interface PagePosition {
  direction: 'next' | 'previous';
  cursor: Cursor;
  /** Whether the row at the cursor itself belongs to the page (used after an emptied page). */
  inclusive: boolean;
  /** The row the cursor was read from: lets a token carry the row instead of long values. */
  row?: number;
}

/** Reads a row's cursor (in the query's columns, within the token's org); undefined when it is gone. */
export type CursorOfRow = (row: number) => Cursor | undefined;

/**
 * Tokens up to this length carry the cursor's values; longer ones carry the row's key. Far below what
 * either door accepts (2,000 characters in the v2 schema, 4,096 over RPC), whatever is stored.
 */
export const INLINE_TOKEN_LENGTH = 512;

const secrets = new WeakMap<Store, Buffer>();

/**
 * The signing key lives in the database, so tokens stay valid across restarts. A migration makes it
 * when the store is opened: a read never writes (a write would renew the data revision mid-GET).
 */
function secret(store: Store): Buffer {
  let key = secrets.get(store);
  if (key) return key;
  const stored = store.value<string>("SELECT value FROM meta WHERE key = 'pageTokenSecret'");
  if (stored === undefined) throw new Error('the page-token secret is missing: the store was not migrated');
  key = Buffer.from(stored, 'base64');
  secrets.set(store, key);
  return key;
}

/** Identity of a query for token binding: org, filters (order-insensitive) and sort, canonical. */
export function queryFingerprint(orgId: string, filters: readonly string[], sort: string): string {
  const canonical = JSON.stringify([orgId, [...filters].sort(), sort]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

function sign(store: Store, payload: string): string {
  return createHmac('sha256', secret(store)).update(payload).digest('base64url').slice(0, 32);
}

function cursorDigest(cursor: Cursor): string {
  return createHash('sha256').update(JSON.stringify(cursor)).digest('base64url').slice(0, 22);
}

function signed(store: Store, fields: object): string {
  const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
  return `${payload}.${sign(store, payload)}`;
}

export function encodePageToken(store: Store, fingerprint: string, position: PagePosition): string {
  const common = {
    q: fingerprint,
    d: position.direction === 'next' ? 'n' : 'p',
    ...(position.inclusive ? { i: 1 } : {}),
  };
  const inline = signed(store, { ...common, k: position.cursor });
  if (inline.length <= INLINE_TOKEN_LENGTH || position.row === undefined) return inline;
  return signed(store, { ...common, r: position.row, h: cursorDigest(position.cursor) });
}

const INVALID = 'pageToken is not a token this server issued (it may be altered or truncated)';
const MOVED =
  'pageToken starts at a dataset that has since changed or been removed: start again from the first page';

/** The cursor a compact token names: its row's values now, if they are still the ones it was issued at. */
function cursorOfCompact(decoded: { r?: unknown; h?: unknown }, resolve: CursorOfRow | undefined): Cursor {
  if (typeof decoded.r !== 'number' || typeof decoded.h !== 'string' || !resolve) {
    throw new InvalidArgument('pageToken', INVALID);
  }
  const cursor = resolve(decoded.r);
  if (cursor === undefined || cursorDigest(cursor) !== decoded.h)
    throw new InvalidArgument('pageToken', MOVED);
  return cursor;
}

export function decodePageToken(
  store: Store,
  fingerprint: string,
  token: string,
  cursorLength: number,
  resolve?: CursorOfRow,
): PagePosition {
  const [payload, signature, ...rest] = token.split('.');
  if (!payload || !signature || rest.length > 0) throw new InvalidArgument('pageToken', INVALID);
  const expected = Buffer.from(sign(store, payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new InvalidArgument('pageToken', INVALID);
  }
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as {
    q: string;
    d: string;
    k?: Cursor;
    i?: number;
    r?: unknown;
    h?: unknown;
  };
  if (decoded.q !== fingerprint) {
    throw new InvalidArgument(
      'pageToken',
      'pageToken belongs to another query: replay it with the same filters and sort it was issued for',
    );
  }
  const cursor = decoded.k === undefined ? cursorOfCompact(decoded, resolve) : decoded.k;
  if (!Array.isArray(cursor) || cursor.length !== cursorLength)
    throw new InvalidArgument('pageToken', INVALID);
  if (!cursor.every((v) => typeof v === 'string' || typeof v === 'number')) {
    throw new InvalidArgument('pageToken', INVALID);
  }
  return {
    direction: decoded.d === 'p' ? 'previous' : 'next',
    cursor,
    inclusive: decoded.i === 1,
    ...(typeof decoded.r === 'number' ? { row: decoded.r } : {}),
  };
}
