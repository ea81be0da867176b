/**
 * The simulated remote's page tokens: base64url JSON holding a position in dataset index order and a
 * fingerprint of the query. Unsigned (nothing secret hides behind them) but checked: a token is
 * refused when it does not decode, names no position in this org, or was issued for other filters,
 * another sort or another org, so a client that changes its query mid-walk learns it at once.
 */
import { createHash } from 'node:crypto';
import { SimError } from './errors';

export interface PagePosition {
  /** `next`: the page after `index` (the last item shown); `previous`: the page before it (the first). */
  direction: 'next' | 'previous';
  index: number;
}

/** Identity of a list query: org, filters (canonical, order-insensitive) and sort. */
export function queryFingerprint(orgId: string, filterTexts: readonly string[], sortText: string): string {
  const canonical = JSON.stringify([orgId, [...filterTexts].sort(), sortText]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

export function encodePageToken(fingerprint: string, position: PagePosition): string {
  const payload = { f: fingerprint, d: position.direction === 'next' ? 'n' : 'p', i: position.index };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

const NOT_OURS = 'pageToken is not a token this service issued (it may be altered or truncated)';

/** The position of a token for this query in an org of `size` datasets; throws a 400 SimError. */
export function decodePageToken(token: string, fingerprint: string, size: number): PagePosition {
  let decoded: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new Error('not base64url');
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new SimError(400, NOT_OURS, 'pageToken');
  }
  const { f, d, i } = (decoded ?? {}) as { f?: unknown; d?: unknown; i?: unknown };
  if (typeof f !== 'string' || (d !== 'n' && d !== 'p') || !Number.isSafeInteger(i)) {
    throw new SimError(400, NOT_OURS, 'pageToken');
  }
  const index = i as number;
  if (f !== fingerprint) {
    throw new SimError(
      400,
      'pageToken was issued for other filters, another sort or another org: repeat the query it came from, or start again without a token',
      'pageToken',
    );
  }
  if (index < -1 || index > size) throw new SimError(400, NOT_OURS, 'pageToken');
  return { direction: d === 'n' ? 'next' : 'previous', index };
}
