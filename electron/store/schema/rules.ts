/**
 * Notification rules (docs/decisions.md "Notification rules"): an org's own rule set, as the JSON the
 * rules file holds (shared/rules.ts), checked before it is written (no row: the org has the default
 * set); and what digest rules gathered, waiting for their summary (an event once, by its key).
 */
export const RULES_SCHEMA = `
CREATE TABLE rule_sets (
  org_id TEXT PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
  json TEXT NOT NULL,
  saved_at TEXT NOT NULL
);
CREATE TABLE digest_items (
  org_id TEXT NOT NULL,
  rule_id TEXT NOT NULL,
  -- What happened, once: 'failed:<deliveryId>'.
  event_key TEXT NOT NULL,
  dataset_id TEXT,
  delivery_id TEXT,
  added_at TEXT NOT NULL,
  PRIMARY KEY (org_id, event_key)
);
`;
