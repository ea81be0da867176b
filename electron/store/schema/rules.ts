/**
 * Notification rules (docs/decisions.md "Notification rules"): an org's own rule set, as the JSON the
 * rules file holds (shared/rules.ts), checked before it is written. No row: the org has the default set.
 */
export const RULES_SCHEMA = `
CREATE TABLE rule_sets (
  org_id TEXT PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
  json TEXT NOT NULL,
  saved_at TEXT NOT NULL
);
`;
