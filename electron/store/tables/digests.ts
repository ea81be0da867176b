/**
 * What digest rules gathered (docs/decisions.md "Notification rules"): each event once, by its key, until
 * its rule's summary goes out. A failure gathered is remembered as 'digested' in the alerts' memory too
 * (announcements.ts), so it is never announced on its own; its summary makes it 'summarized'.
 */
import type { Store } from '../database';
import { type FailedDataset, recordOutcome } from './announcements';

export interface DigestItem extends FailedDataset {
  ruleId: string;
  addedAt: string;
}

/** Gathers failures for `ruleId`'s digest and remembers them as 'digested', in one transaction. */
export function gatherFailures(
  store: Store,
  ruleId: string,
  failures: readonly FailedDataset[],
  now: Date,
): void {
  if (failures.length === 0) return;
  const at = now.toISOString();
  store.transaction(
    () => {
      for (const failure of failures) {
        store.run(
          `INSERT OR IGNORE INTO digest_items (org_id, rule_id, event_key, dataset_id, delivery_id, added_at)
           VALUES (?, ?, ?, ?, ?, ?)`,
          [failure.orgId, ruleId, `failed:${failure.deliveryId}`, failure.datasetId, failure.deliveryId, at],
        );
        recordOutcome(store, failure, 'digested', at);
      }
    },
    { dataChange: false },
  );
}

/** Everything gathered, oldest first, with each dataset's current name. */
export function digestItems(store: Store): DigestItem[] {
  return store
    .all(
      `SELECT g.org_id, g.rule_id, g.dataset_id, g.delivery_id, g.added_at, d.name FROM digest_items g
       LEFT JOIN datasets d ON d.org_id = g.org_id AND d.dataset_id = g.dataset_id
       ORDER BY g.added_at, g.org_id, g.event_key`,
    )
    .map((row) => ({
      orgId: String(row.org_id),
      ruleId: String(row.rule_id),
      datasetId: String(row.dataset_id),
      datasetName: row.name === null || row.name === undefined ? null : String(row.name),
      deliveryId: String(row.delivery_id),
      addedAt: String(row.added_at),
    }));
}

/** Drops what a summary told of (call in the transaction that remembers it). */
export function dropDigestItems(store: Store, items: readonly DigestItem[]): void {
  store.transaction(
    () => {
      for (const item of items)
        store.run('DELETE FROM digest_items WHERE org_id = ? AND event_key = ?', [
          item.orgId,
          `failed:${item.deliveryId}`,
        ]);
    },
    { dataChange: false },
  );
}
