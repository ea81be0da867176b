/**
 * The sync's fingerprints (docs/architecture.md#sync): each stored dataset keeps the hash of the record the remote
 * last sent (`datasets.remote_hash`, written by `datasetWriter`), so a cycle writes only what changed.
 * Read in batches with the event loop free between them (docs/architecture.md#performance-budgets): reading 10k datasets at
 * once would stall it for tens of milliseconds.
 */
import type { Store } from '../database';

/** Rows per read. */
const BATCH = 1000;

/** datasetId → fingerprint (null for imported data). */
export type Fingerprints = Map<string, string | null>;

/**
 * Every dataset of the org with its fingerprint, read in batches with the event loop free between them.
 * Only this source's sync writes the org meanwhile.
 */
export async function remoteHashes(store: Store, orgId: string): Promise<Fingerprints> {
  const hashes: Fingerprints = new Map();
  let after = '';
  for (;;) {
    const read = await store.whenReadable(() =>
      store.eachRow(
        'SELECT dataset_id, remote_hash FROM datasets WHERE org_id = ? AND dataset_id > ? ORDER BY dataset_id LIMIT ?',
        [orgId, after, BATCH],
        ([datasetId, hash]) => {
          after = String(datasetId);
          hashes.set(after, hash === null ? null : String(hash));
        },
      ),
    );
    if (read < BATCH) return hashes;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The fingerprints of the given datasets (those not stored are absent), in batches. */
export async function remoteHashesOf(
  store: Store,
  orgId: string,
  datasetIds: readonly string[],
): Promise<Fingerprints> {
  const hashes: Fingerprints = new Map();
  for (let start = 0; start < datasetIds.length; start += BATCH) {
    // The event loop free between batches too (whenReadable runs at once when the store is readable):
    // at 100k datasets a batch is a random page each, a few batches back to back 25–30 ms.
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const batch = datasetIds.slice(start, start + BATCH);
    await store.whenReadable(() =>
      store.eachRow(
        `SELECT dataset_id, remote_hash FROM datasets WHERE org_id = ? AND dataset_id IN (SELECT value FROM json_each(?))`,
        [orgId, JSON.stringify(batch)],
        ([datasetId, hash]) => hashes.set(String(datasetId), hash === null ? null : String(hash)),
      ),
    );
  }
  return hashes;
}
