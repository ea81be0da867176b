/**
 * Page tokens are signed with a secret the store holds from the moment it is opened: reading a page
 * (a GET) never writes, so it never renews the data revision (ETags, cached pages) nor dirties the file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CursorOfRow,
  INLINE_TOKEN_LENGTH,
  decodePageToken,
  encodePageToken,
  queryFingerprint,
} from '../../../electron/query/pageToken';
import { Store } from '../../../electron/store/database';
import { type ApiFixture, apiFixture } from '../../helpers/api';

const dirs: string[] = [];
const fixtures: ApiFixture[] = [];
afterEach(async () => {
  for (const fixture of fixtures.splice(0)) await fixture.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What would show a write: the data revision and SQLite's count of changed rows. */
const writes = (store: Store) => ({
  revision: store.dataRevision,
  changes: store.value<number>('SELECT total_changes()'),
});

describe('the page-token secret', () => {
  it('signing and checking tokens on a freshly opened store writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dh-page-token-'));
    dirs.push(dir);
    const store = await Store.open({ dataDir: dir });
    try {
      const before = writes(store);
      const fingerprint = queryFingerprint('acme', [], '');
      const position = { direction: 'next', cursor: ['x', 1], inclusive: false } as const;
      const token = encodePageToken(store, fingerprint, position);
      expect(decodePageToken(store, fingerprint, token, 2)).toEqual(position);
      expect(writes(store)).toEqual(before);
    } finally {
      await store.close();
    }
  });

  it('list reads that hand out page tokens leave the data revision as it was', async () => {
    const fixture = await apiFixture({}, 30);
    fixtures.push(fixture);
    const revision = fixture.store.dataRevision;
    let url = '/v2/ops/health/datasets/deliveries?pageSize=7';
    let pages = 0;
    for (;;) {
      const response = await fixture.get(url);
      expect(response.statusCode).toBe(200);
      pages++;
      const { nextPageToken } = response.json() as { nextPageToken: string };
      if (nextPageToken === '') break;
      url = `/v2/ops/health/datasets/deliveries?pageSize=7&pageToken=${nextPageToken}`;
    }
    expect(pages).toBe(5);
    expect(fixture.store.dataRevision).toBe(revision);
  });
});

describe('compact tokens (issue 15 item 5)', () => {
  const fingerprint = queryFingerprint('acme', [], '');
  const long = ['"🙂,.()*%_\\'.repeat(400), 'x'.repeat(1024)];
  const open = async () => {
    const store = await Store.open({ dataDir: null });
    stores.push(store);
    return store;
  };
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  it('a short cursor travels in the token; a long one as its row, so no token outgrows 512 characters', async () => {
    const store = await open();
    const short = { direction: 'next', cursor: ['a', 'b'], inclusive: false, row: 3 } as const;
    // The row is not needed when the values travel.
    const { row: _row, ...inline } = short;
    expect(decodePageToken(store, fingerprint, encodePageToken(store, fingerprint, short), 2)).toStrictEqual(
      inline,
    );

    const position = { direction: 'previous', cursor: long, inclusive: true, row: 41 } as const;
    const token = encodePageToken(store, fingerprint, position);
    expect(token.length).toBeLessThanOrEqual(INLINE_TOKEN_LENGTH);
    expect(decodePageToken(store, fingerprint, token, 2, (row) => (row === 41 ? long : undefined))).toEqual(
      position,
    );
  });

  const refusals: [string, CursorOfRow | null, RegExp][] = [
    [
      'the row is gone',
      () => undefined,
      /has since changed or been removed: start again from the first page/,
    ],
    ['its values changed', () => [long[0]!, 'y'], /has since changed or been removed/],
    ['no row can be read', null, /not a token this server issued/],
  ];
  it.each(refusals)('a compact token is refused when %s', async (_name, resolve, message) => {
    const store = await open();
    const token = encodePageToken(store, fingerprint, {
      direction: 'next',
      cursor: long,
      inclusive: false,
      row: 41,
    });
    expect(() => decodePageToken(store, fingerprint, token, 2, resolve ?? undefined)).toThrow(message);
  });
});
