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

/**
 * What the rules sent (docs/decisions.md "Rule notifications: one evaluator"): each notification once,
 * by its id, as JSON — what its routes deliver and what the replay compares with. A digest's gathered
 * facts are kept whole, so it tells of any event in the words it was learned with.
 */
export const RULE_LOG_SCHEMA = `
ALTER TABLE digest_items ADD COLUMN fact TEXT;
CREATE TABLE rule_notifications (
  id TEXT NOT NULL,
  org_id TEXT NOT NULL,
  at_key INTEGER NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (org_id, id)
);
CREATE INDEX rule_notifications_by_time ON rule_notifications (org_id, at_key);
`;
