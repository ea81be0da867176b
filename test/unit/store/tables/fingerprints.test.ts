/** The sync's fingerprints: every stored dataset's, or the given ones', read in batches of 1000, the event loop free between them. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../../../electron/store/database';
import { writeDataset } from '../../../../electron/store/tables/datasetWriter';
import { remoteHashes, remoteHashesOf } from '../../../../electron/store/tables/fingerprints';
import { ensureOrg } from '../../../../electron/store/tables/orgs';
import { fixtureRecords } from '../../../helpers/fixtures';

let store: Store;
beforeEach(async () => {
  store = await Store.open({ dataDir: null });
});
afterEach(() => store.close());

/** Writes `count` datasets to the org; the first without a fingerprint (imported data). */
function putDatasets(orgId: string, count: number): string[] {
  const records = fixtureRecords(count, 3, orgId);
  store.transaction(() => {
    ensureOrg(store, orgId, new Date('2026-11-21T04:00:00.000Z'));
    records.forEach((record, i) =>
      writeDataset(store, orgId, record, {
        events: 'merge',
        deliveriesPerDataset: 100,
        ...(i === 0 ? {} : { remoteHash: `hash-${record.datasetId}` }),
      }),
    );
  });
  return records.map((record) => record.datasetId);
}

describe('fingerprints', () => {
  it('reads every dataset of the org across batches (two full ones and a last of one), not other orgs', async () => {
    const ids = putDatasets('acme', 2001);
    putDatasets('other', 3);
    const hashes = await remoteHashes(store, 'acme');
    expect(hashes.size).toBe(2001);
    expect(hashes.get(ids[0]!)).toBeNull();
    for (const id of ids.slice(1)) expect(hashes.get(id)).toBe(`hash-${id}`);
    expect(await remoteHashes(store, 'nobody')).toEqual(new Map());
  });

  it('reads the given datasets across batches; those not stored, or of another org, are absent', async () => {
    const ids = putDatasets('acme', 1500);
    const [other] = putDatasets('other', 1);
    const asked = [...ids, 'not-stored', other!];
    const hashes = await remoteHashesOf(store, 'acme', asked);
    expect([...hashes.keys()].sort()).toEqual([...ids].sort());
    expect(hashes.get(ids[0]!)).toBeNull();
    expect(hashes.get(ids[1499]!)).toBe(`hash-${ids[1499]}`);
    expect(await remoteHashesOf(store, 'acme', [])).toEqual(new Map());
  });

  it('gives the event loop a turn between batches of the given datasets (a poll reads thousands)', async () => {
    const ids = putDatasets('acme', 1500);
    let turned = false;
    setImmediate(() => (turned = true));
    const turnedBeforeTheEnd = await remoteHashesOf(store, 'acme', ids).then(() => turned);
    expect(turnedBeforeTheEnd).toBe(true);
  });
});
