/**
 * Route delivery (docs/decisions.md "Routes: at most once (issue 27)"): the outbox of notifications on
 * their way to a rule set's command hooks and webhooks. One row per notification and route, written in
 * the commit that decided the notification, so a decision and its deliveries are kept or lost together;
 * the same notification and route twice is one row. A row is `pending` (due at `next_attempt_at`),
 * `sending` (on disk before the attempt starts: found so at start-up, its outcome is unknown), `sent` or
 * `dead` (given up, with the last error, until someone sends it again).
 */
export const ROUTES_SCHEMA = `
CREATE TABLE route_outbox (
  id INTEGER PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  notification_id TEXT NOT NULL,
  route_id TEXT NOT NULL,
  -- The notification as JSON (docs/api.md "Route payload"): what the route is sent, but for its text.
  payload TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'sent', 'dead')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (org_id, notification_id, route_id)
);
CREATE INDEX route_outbox_due ON route_outbox (next_attempt_at) WHERE state = 'pending';
CREATE INDEX route_outbox_dead ON route_outbox (org_id, updated_at) WHERE state = 'dead';
`;

/**
 * Where a dataset's timeline was last cut (docs/storage.md "Where a timeline was cut"): a timeline is
 * kept as far back as the deliveries beside it, and a replay of the rules must say when that is inside
 * its window rather than show the dropped changes as a quiet time. A dataset whose timeline was never
 * cut has no row.
 */
export const TIMELINE_CUTS_SCHEMA = `
CREATE TABLE timeline_cuts (
  org_id TEXT NOT NULL,
  dataset_id TEXT NOT NULL,
  -- Epoch milliseconds: the changes before it are gone.
  cut_key INTEGER NOT NULL,
  PRIMARY KEY (org_id, dataset_id)
) WITHOUT ROWID;
`;
