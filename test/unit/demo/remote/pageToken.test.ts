/** Page tokens: round trip, bound to their query, and anything altered or foreign is a 400. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SimError } from '../../../../electron/demo/remote/errors';
import {
  type PagePosition,
  decodePageToken,
  encodePageToken,
  queryFingerprint,
} from '../../../../electron/demo/remote/pageToken';

const FINGERPRINT = queryFingerprint('org-sim', ['deliveryStatus.eq.FAILED'], '');

function refusal(run: () => unknown): SimError {
  try {
    run();
  } catch (error) {
    if (error instanceof SimError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('page tokens', () => {
  it('round-trip any position of the org', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('next', 'previous'),
        fc.integer({ min: -1, max: 500 }),
        (direction, index) => {
          const position = { direction, index } as PagePosition;
          expect(decodePageToken(encodePageToken(FINGERPRINT, position), FINGERPRINT, 500)).toEqual(position);
        },
      ),
    );
  });

  it('fingerprints ignore filter order but not filters, sort or org', () => {
    const a = queryFingerprint('org-sim', ['datasetId.eq.x', 'deliveryStatus.eq.FAILED'], '');
    expect(queryFingerprint('org-sim', ['deliveryStatus.eq.FAILED', 'datasetId.eq.x'], '')).toBe(a);
    expect(queryFingerprint('org-sim', ['datasetId.eq.x'], '')).not.toBe(a);
    expect(queryFingerprint('org-sim', ['datasetId.eq.x', 'deliveryStatus.eq.FAILED'], 'x.asc')).not.toBe(a);
    expect(queryFingerprint('org-b', ['datasetId.eq.x', 'deliveryStatus.eq.FAILED'], '')).not.toBe(a);
  });

  const valid = encodePageToken(FINGERPRINT, { direction: 'next', index: 3 });
  it.each([
    ['garbage', 'not a token!'],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    ['JSON of another shape', Buffer.from('{"a":1}').toString('base64url')],
    ['a fraction', Buffer.from(JSON.stringify({ f: FINGERPRINT, d: 'n', i: 1.5 })).toString('base64url')],
    ['beyond the org', encodePageToken(FINGERPRINT, { direction: 'next', index: 501 })],
    ['truncated', valid.slice(0, -3)],
    [
      'for another query',
      encodePageToken(queryFingerprint('org-b', [], ''), { direction: 'next', index: 3 }),
    ],
  ])('refuses %s', (_name, token) => {
    const error = refusal(() => decodePageToken(token, FINGERPRINT, 500));
    expect(error.status).toBe(400);
    expect(error.field).toBe('pageToken');
  });
});
