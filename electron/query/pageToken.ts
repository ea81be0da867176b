/**
 * Keyset page tokens (DESIGN.md §2): an opaque, signed position in one query's order. A token names
 * the sort-key values of the row it starts after (next) or before (previous), and is bound to the org,
 * filters and sort it was issued for; anything else, altered or foreign, is refused.
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
}

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

export function encodePageToken(store: Store, fingerprint: string, position: PagePosition): string {
  const payload = Buffer.from(
    JSON.stringify({
      q: fingerprint,
      d: position.direction === 'next' ? 'n' : 'p',
      k: position.cursor,
      ...(position.inclusive ? { i: 1 } : {}),
    }),
  ).toString('base64url');
  return `${payload}.${sign(store, payload)}`;
}

const INVALID = 'pageToken is not a token this server issued (it may be altered or truncated)';

export function decodePageToken(
  store: Store,
  fingerprint: string,
  token: string,
  cursorLength: number,
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
    k: Cursor;
    i?: number;
  };
  if (decoded.q !== fingerprint) {
    throw new InvalidArgument(
      'pageToken',
      'pageToken belongs to another query: replay it with the same filters and sort it was issued for',
    );
  }
  if (!Array.isArray(decoded.k) || decoded.k.length !== cursorLength)
    throw new InvalidArgument('pageToken', INVALID);
  if (!decoded.k.every((v) => typeof v === 'string' || typeof v === 'number')) {
    throw new InvalidArgument('pageToken', INVALID);
  }
  return {
    direction: decoded.d === 'p' ? 'previous' : 'next',
    cursor: decoded.k,
    inclusive: decoded.i === 1,
  };
}
