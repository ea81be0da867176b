/**
 * What digest rules gathered (docs/decisions.md "Rule notifications: one evaluator"): each event once,
 * by its key, with the fact as the rules judged it, until its rule's digest goes out. A failure gathered
 * is remembered as 'digested' in the alerts' memory too (announcements.ts), so it is never announced on
 * its own; its digest makes it 'summarized'.
 */
import type { Store } from '../database';
import { recordOutcome } from './announcements';

/** A gathered event: its key, the JSON of its fact (null: gathered before facts were kept, a failure). */
export interface DigestItem {
  orgId: string;
  ruleId: string;
  eventKey: string;
  datasetId: string | null;
  datasetName: string | null;
  deliveryId: string | null;
  addedAt: string;
  fact: unknown;
}

/** An event to gather for `ruleId`'s digest. */
export interface NewDigestItem {
  orgId: string;
  ruleId: string;
  eventKey: string;
  datasetId: string | null;
  deliveryId: string | null;
  fact: unknown;
}

/** Gathers events, a failure remembered as 'digested' too, in one transaction. */
export function gatherItems(store: Store, items: readonly NewDigestItem[], now: Date): void {
  if (items.length === 0) return;
  const at = now.toISOString();
  store.transaction(
    () => {
      for (const item of items) {
        store.run(
          `INSERT OR IGNORE INTO digest_items (org_id, rule_id, event_key, dataset_id, delivery_id, added_at, fact)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [
            item.orgId,
            item.ruleId,
            item.eventKey,
            item.datasetId,
            item.deliveryId,
            at,
            JSON.stringify(item.fact),
          ],
        );
        if (item.eventKey.startsWith('failed:') && item.datasetId !== null && item.deliveryId !== null)
          recordOutcome(
            store,
            { orgId: item.orgId, datasetId: item.datasetId, datasetName: null, deliveryId: item.deliveryId },
            'digested',
            at,
          );
      }
    },
    { dataChange: false },
  );
}

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

/** Everything gathered, oldest first, with each dataset's current name. */
export function digestItems(store: Store): DigestItem[] {
  return store
    .all(
      `SELECT g.org_id, g.rule_id, g.event_key, g.dataset_id, g.delivery_id, g.added_at, g.fact, d.name
       FROM digest_items g LEFT JOIN datasets d ON d.org_id = g.org_id AND d.dataset_id = g.dataset_id
       ORDER BY g.added_at, g.org_id, g.event_key`,
    )
    .map((row) => ({
      orgId: String(row.org_id),
      ruleId: String(row.rule_id),
      eventKey: String(row.event_key),
      datasetId: text(row.dataset_id),
      datasetName: text(row.name),
      deliveryId: text(row.delivery_id),
      addedAt: String(row.added_at),
      fact: row.fact === null || row.fact === undefined ? null : (JSON.parse(String(row.fact)) as unknown),
    }));
}

/** Drops what a digest told of, or left out (call in the transaction that remembers it). */
export function dropDigestItems(store: Store, items: readonly { orgId: string; eventKey: string }[]): void {
  store.transaction(
    () => {
      for (const item of items)
        store.run('DELETE FROM digest_items WHERE org_id = ? AND event_key = ?', [item.orgId, item.eventKey]);
    },
    { dataChange: false },
  );
}

/** When the first item of each rule's waiting digest was gathered, per org and rule. */
export function digestFirsts(store: Store): { orgId: string; ruleId: string; first: Date }[] {
  return store
    .all('SELECT org_id, rule_id, min(added_at) AS first FROM digest_items GROUP BY org_id, rule_id')
    .map((row) => ({
      orgId: String(row.org_id),
      ruleId: String(row.rule_id),
      first: new Date(String(row.first)),
    }));
}
