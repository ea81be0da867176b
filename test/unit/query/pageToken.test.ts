/**
 * Page tokens are signed with a secret the store holds from the moment it is opened: reading a page
 * (a GET) never writes, so it never renews the data revision (ETags, cached pages) nor dirties the file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodePageToken, encodePageToken, queryFingerprint } from '../../../electron/query/pageToken';
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
