/** Bearer-key authentication: every v2 request is scoped to the org of its key (docs/api.md#keys). */
import type { Store } from '../store/database';
import { type Authenticated, authenticateApiKey, recordKeyUse } from '../store/tables/apiKeys';
import { ApiError } from './errors';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer' };

/** Last-used times are written at most this often per key, so reads do not turn into constant writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

export class Authenticator {
  private readonly lastRecorded = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {}

  authenticate(header: string | undefined): Authenticated {
    if (header === undefined || header === '') {
      throw new ApiError(
        'UNAUTHENTICATED',
        'missing Authorization header: send "Authorization: Bearer <key>"',
        undefined,
        CHALLENGE,
      );
    }
    const match = /^Bearer +(\S+)$/i.exec(header.trim());
    if (!match) {
      throw new ApiError(
        'UNAUTHENTICATED',
        'malformed Authorization header: expected "Bearer <key>"',
        undefined,
        CHALLENGE,
      );
    }
    const identity = authenticateApiKey(this.store, match[1]!);
    if (!identity) {
      throw new ApiError(
        'UNAUTHENTICATED',
        'the API key is unknown or revoked: create one with `dataset-health keys create --org <org>`',
        undefined,
        CHALLENGE,
      );
    }
    return identity;
  }

  /**
   * Records that the key was used (at most every LAST_USED_RESOLUTION_MS): at once when the store is
   * free, after an export in progress otherwise, never holding up the request that used it. Call it
   * outside `whenReadable`, where a write is refused.
   */
  noteUse(keyId: string): void {
    const now = this.now();
    const last = this.lastRecorded.get(keyId);
    if (last !== undefined && now.getTime() - last < LAST_USED_RESOLUTION_MS) return;
    this.lastRecorded.set(keyId, now.getTime());
    // Bookkeeping: its failure (the store closing) is not the request's.
    this.store.whenIdle(() => recordKeyUse(this.store, keyId, now)).catch(() => {});
  }
}
