/**
 * Ordered schema migrations; `PRAGMA user_version` holds how many have run. Append only: a shipped
 * migration never changes. A migration is SQL, or a function for what SQL cannot do well.
 */
import { randomBytes } from 'node:crypto';
import type { Database } from 'sql.js';
import { firstFailure } from '../../../shared/causes';
import { DEFAULT_INCIDENT_GAP_HOURS, HOUR_MS, refreshIncidents } from './incidents';
import { incidentSql } from './troubledFailures';
import { unpackTasks } from './tasksBlob';
import { SORT_INDEXES } from './sortKeys';
import { LOOKUP_INDEXES } from './lookupIndexes';
import { addFailedDeliveryColumn } from './failedDelivery';
import { TEAM_SCHEMA } from './team';
import { RULES_SCHEMA, RULE_LOG_SCHEMA } from './rules';
import { ROUTES_SCHEMA, TIMELINE_CUTS_SCHEMA } from './routes';

export type Migration = string | ((db: Database) => void);

const BASE_SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE orgs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_synced_at TEXT
);

-- Deadline configs are repeated on every event: store each distinct one once.
CREATE TABLE configs (id INTEGER PRIMARY KEY, json TEXT NOT NULL UNIQUE);

CREATE TABLE datasets (
  pk INTEGER PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  dataset_id TEXT NOT NULL,
  legacy_dataset_id TEXT,
  name TEXT,
  cdu_id TEXT,
  cdu_name TEXT,
  data_product_id TEXT,
  data_product_name TEXT,
  owner_org_id TEXT,
  supplier_id TEXT,
  supplier_name TEXT,
  config_id INTEGER NOT NULL REFERENCES configs(id),
  delivery_id TEXT,
  status TEXT,
  latest_ts TEXT,
  next_expected_ts TEXT,
  -- Lower-cased copies (JavaScript toLowerCase, full Unicode) for ilike; SQLite's lower() is ASCII only.
  dataset_id_lower TEXT NOT NULL,
  name_lower TEXT NOT NULL,
  data_product_lower TEXT NOT NULL,
  supplier_id_lower TEXT NOT NULL,
  -- Sort keys: ascending order of each gives the contract's order, empty values last (see sortKeys.ts).
  name_key TEXT NOT NULL,
  k_status_asc INTEGER NOT NULL,
  k_status_desc INTEGER NOT NULL,
  k_ts_asc INTEGER NOT NULL,
  k_ts_desc INTEGER NOT NULL,
  UNIQUE (org_id, dataset_id)
);
CREATE INDEX datasets_legacy ON datasets (org_id, legacy_dataset_id);
CREATE INDEX datasets_delivery ON datasets (org_id, delivery_id);
-- Exact filters on these fields in the default order are one index range scan each.
CREATE INDEX datasets_product ON datasets (org_id, data_product_name, name_key, dataset_id);
CREATE INDEX datasets_supplier ON datasets (org_id, supplier_id, name_key, dataset_id);
CREATE INDEX datasets_status ON datasets (org_id, status, name_key, dataset_id);

-- Clustered by dataset, newest first (deadline, then delivered time, then the later write), so the
-- latest N events of a dataset are one contiguous range. The keys are epoch milliseconds; an unknown
-- time is EMPTY_TIME (below every real one), so it sorts last as the contract wants.
CREATE TABLE events (
  dataset_pk INTEGER NOT NULL REFERENCES datasets(pk) ON DELETE CASCADE,
  deadline_key INTEGER NOT NULL,
  delivered_key INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  delivery_id TEXT,
  status TEXT,
  deadline TEXT,
  delivered_at TEXT,
  config_id INTEGER NOT NULL REFERENCES configs(id),
  run_details TEXT,
  PRIMARY KEY (dataset_pk, deadline_key DESC, delivered_key DESC, seq DESC)
) WITHOUT ROWID;
-- Merges by deliveryId within a dataset, and finds a delivery's dataset (tasks endpoint): one index for both.
CREATE UNIQUE INDEX events_by_delivery ON events (delivery_id, dataset_pk) WHERE delivery_id IS NOT NULL;

-- One row per delivery whose tasks are known: the whole tasks record as normalized JSON (runId kept),
-- deflated (task records are verbose and repetitive: about a fifth of the size, a fifth of the file to save).
CREATE TABLE delivery_tasks (
  org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  delivery_id TEXT NOT NULL,
  json BLOB NOT NULL,
  PRIMARY KEY (org_id, delivery_id)
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  name TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);

CREATE TABLE announced_deliveries (
  org_id TEXT NOT NULL,
  delivery_id TEXT NOT NULL,
  dataset_id TEXT NOT NULL,
  announced_at TEXT NOT NULL,
  PRIMARY KEY (org_id, delivery_id)
);

CREATE TABLE snoozes (
  org_id TEXT NOT NULL,
  dataset_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  until TEXT,
  delivery_id TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (org_id, dataset_id)
);

CREATE TABLE sync_runs (
  id INTEGER PRIMARY KEY,
  source_id TEXT NOT NULL,
  org_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  outcome TEXT,
  counts TEXT,
  error TEXT
);
CREATE INDEX sync_runs_recent ON sync_runs (org_id, started_at DESC);
`;

/** One index per sort order the list endpoint accepts, so every page is an index range scan. */
function sortIndexes(): string {
  return SORT_INDEXES.map(
    ({ name, columns }) =>
      `CREATE INDEX ${name} ON datasets (org_id, ${[...columns, 'name_key', 'dataset_id'].join(', ')});`,
  ).join('\n');
}

/** Sync (docs/architecture.md#sync): the sources to mirror, and what the remote said of each dataset last time. */
const SYNC_SCHEMA = `
CREATE TABLE sources (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  name TEXT NOT NULL,
  base_url TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1,
  -- The remote API key as the shell's secret store sealed it (safeStorage); never plain text.
  api_key_sealed TEXT,
  created_at TEXT NOT NULL
);
-- A fingerprint of the record as the remote last sent it: an unchanged record is not written again.
ALTER TABLE datasets ADD COLUMN remote_hash TEXT;
CREATE INDEX sync_runs_by_source ON sync_runs (source_id, kind, outcome);
`;

/**
 * Alerts (docs/architecture.md#notifications): what became of each announced delivery — notified alone, in a summary, silenced
 * by a snooze or a pause, or held until quiet hours end (those are found again through the index).
 */
const ALERTS_SCHEMA = `
ALTER TABLE announced_deliveries ADD COLUMN outcome TEXT NOT NULL DEFAULT 'notified';
CREATE INDEX announced_held ON announced_deliveries (outcome) WHERE outcome = 'held';
`;

/**
 * The key that signs page tokens (query/pageToken.ts), made here so that reading a page never writes.
 * Random bytes from Node's CSPRNG, base64 as before; a database whose first GET already made one keeps it.
 */
const pageTokenSecret: Migration = (db) =>
  db.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('pageTokenSecret', ?)", [
    randomBytes(32).toString('base64'),
  ]);

/**
 * The on-call layer (docs/architecture.md#the-on-call-layer). Each stored tasks record keeps its first failed task beside it (what
 * causes group by, without inflating every record on each look); acknowledgements, the per-dataset
 * timeline, sync outages, and the reminders sent for each announced failure.
 */
const KNOWLEDGE_SCHEMA = `
ALTER TABLE delivery_tasks ADD COLUMN fail_stage TEXT;
ALTER TABLE delivery_tasks ADD COLUMN fail_code TEXT;
ALTER TABLE delivery_tasks ADD COLUMN fail_message TEXT;

CREATE TABLE acknowledgements (
  org_id TEXT NOT NULL,
  dataset_id TEXT NOT NULL,
  delivery_id TEXT NOT NULL,
  status TEXT NOT NULL,
  cause_id TEXT,
  note TEXT,
  by_name TEXT NOT NULL,
  at TEXT NOT NULL,
  ended_at TEXT,
  end_reason TEXT,
  PRIMARY KEY (org_id, dataset_id, delivery_id)
);
-- At most one acknowledgement holds per dataset: the one of its current failure.
CREATE UNIQUE INDEX acknowledgements_open ON acknowledgements (org_id, dataset_id) WHERE ended_at IS NULL;

-- What the mirror saw and did, per dataset, newest first (at_key: epoch ms; id breaks ties in order).
CREATE TABLE timeline (
  id INTEGER PRIMARY KEY,
  org_id TEXT NOT NULL,
  dataset_id TEXT NOT NULL,
  at TEXT NOT NULL,
  at_key INTEGER NOT NULL,
  kind TEXT NOT NULL,
  from_status TEXT,
  to_status TEXT,
  delivery_id TEXT,
  text TEXT,
  by_name TEXT
);
CREATE INDEX timeline_by_dataset ON timeline (org_id, dataset_id, at_key DESC, id DESC);

-- A source's data turned stale (lost contact) and, once it synced again, when it recovered.
CREATE TABLE sync_outages (
  id INTEGER PRIMARY KEY,
  org_id TEXT NOT NULL,
  source_id TEXT NOT NULL,
  source_name TEXT NOT NULL,
  last_success_at TEXT,
  lost_at TEXT NOT NULL,
  regained_at TEXT,
  -- From a snapshot: another machine's outage, never this mirror's contact with a source of its own.
  imported INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sync_outages_by_org ON sync_outages (org_id, lost_at DESC);

ALTER TABLE announced_deliveries ADD COLUMN reminders INTEGER NOT NULL DEFAULT 0;
ALTER TABLE announced_deliveries ADD COLUMN reminded_at TEXT;
`;

/** Fills the first failed task of every tasks record stored before KNOWLEDGE_SCHEMA (once, at upgrade). */
const failureOfStoredTasks: Migration = (db) => {
  const read = db.prepare('SELECT org_id, delivery_id, json FROM delivery_tasks');
  const write = db.prepare(
    'UPDATE delivery_tasks SET fail_stage = ?, fail_code = ?, fail_message = ? WHERE org_id = ? AND delivery_id = ?',
  );
  try {
    while (read.step()) {
      const [orgId, deliveryId, blob] = read.get() as [string, string, Uint8Array];
      let failure;
      try {
        failure = firstFailure(unpackTasks(blob));
      } catch {
        continue; // Unreadable: its failure stays unknown, as for a record never fetched.
      }
      if (failure) write.run([failure.stage, failure.shortCode, failure.message, orgId, deliveryId]);
    }
  } finally {
    read.free();
    write.free();
  }
};

/**
 * Failures a cause's cool-down batched (alerts/coolDown.ts), looked at every tick: found without
 * reading the whole memory, as the held ones are.
 */
const COOL_DOWN_SCHEMA = `
CREATE INDEX announced_batched ON announced_deliveries (outcome) WHERE outcome = 'batched';
`;

/**
 * Incidents (docs/decisions.md "Incidents"): each stored tasks record keeps its failure's time beside
 * its first failed task; the incidents and the failures each holds.
 */
const INCIDENTS_SCHEMA = `
ALTER TABLE delivery_tasks ADD COLUMN fail_at TEXT;

CREATE TABLE incidents (
  org_id TEXT NOT NULL,
  incident_id TEXT NOT NULL,
  -- The cause key its failures share (shared/causes.ts), and its title when it opened.
  cause_id TEXT NOT NULL,
  title TEXT NOT NULL,
  first_failure_at TEXT NOT NULL,
  last_failure_at TEXT NOT NULL,
  opened_at TEXT NOT NULL,
  -- When none of its failures was troubled any more; null while live.
  ended_at TEXT,
  PRIMARY KEY (org_id, incident_id)
);
CREATE INDEX incidents_by_time ON incidents (org_id, last_failure_at);
CREATE INDEX incidents_live ON incidents (org_id, ended_at);

-- One row per failure (dataset, its failed or missing delivery, that status) an incident holds.
CREATE TABLE incident_failures (
  org_id TEXT NOT NULL,
  dataset_id TEXT NOT NULL,
  delivery_id TEXT NOT NULL,
  status TEXT NOT NULL,
  incident_id TEXT NOT NULL,
  cause_id TEXT NOT NULL,
  -- When it happened (never after learned_at), and when the mirror learned of it.
  failure_at TEXT NOT NULL,
  learned_at TEXT NOT NULL,
  -- When it stopped being its dataset's problem (recovered, failed again, gone).
  ended_at TEXT,
  PRIMARY KEY (org_id, dataset_id, delivery_id, status)
);
CREATE INDEX incident_failures_by_incident ON incident_failures (org_id, incident_id);
CREATE INDEX incident_failures_live ON incident_failures (org_id, ended_at);

-- Each dataset's troubled deliveries, newest first: its last trouble is one seek (the handoff's
-- recoveries read it for every dataset that is not troubled now).
CREATE INDEX events_troubled ON events (dataset_pk, deadline_key DESC, delivered_key DESC, seq DESC)
  WHERE status IN ('FAILED', 'MISSING');
`;

/**
 * Fills the failure time of every stored tasks record and groups each org's troubles into incidents
 * (once, at upgrade), with the default gap. When the mirror learned of a failure: the timeline's entry
 * of it, else the org's last sync (it knew by then), else when the org was made.
 */
const incidentsOfStoredTroubles: Migration = (db) => {
  const read = db.prepare(
    'SELECT org_id, delivery_id, json FROM delivery_tasks WHERE fail_stage IS NOT NULL',
  );
  const write = db.prepare('UPDATE delivery_tasks SET fail_at = ? WHERE org_id = ? AND delivery_id = ?');
  try {
    while (read.step()) {
      const [orgId, deliveryId, blob] = read.get() as [string, string, Uint8Array];
      try {
        const at = firstFailure(unpackTasks(blob))?.at ?? null;
        if (at !== null) write.run([at, orgId, deliveryId]);
      } catch {
        // Unreadable: its time is the delivery's, as for a record never fetched.
      }
    }
  } finally {
    read.free();
    write.free();
  }
  // Its grouping reads the failed delivery stored on the row, a later migration's column.
  addFailedDeliveryColumn(db);
  const sql = incidentSql(db);
  for (const org of sql.all('SELECT id, created_at, last_synced_at FROM orgs')) {
    const orgId = String(org.id);
    const known = String(org.last_synced_at ?? org.created_at);
    refreshIncidents(sql, orgId, {
      now: new Date(known),
      gapMs: DEFAULT_INCIDENT_GAP_HOURS * HOUR_MS,
      learnedAt: (failure) => {
        const [entry] = sql.all(
          `SELECT min(at_key) AS at FROM timeline WHERE org_id = ? AND dataset_id = ? AND kind = 'status'
             AND to_status = ? AND delivery_id IS ?`,
          [orgId, failure.datasetId, failure.status, failure.deliveryId === '' ? null : failure.deliveryId],
        );
        return entry?.at == null ? null : new Date(Number(entry.at)).toISOString();
      },
    });
  }
};

export const MIGRATIONS: readonly Migration[] = [
  BASE_SCHEMA + sortIndexes(),
  SYNC_SCHEMA,
  ALERTS_SCHEMA,
  pageTokenSecret,
  KNOWLEDGE_SCHEMA,
  failureOfStoredTasks,
  COOL_DOWN_SCHEMA,
  INCIDENTS_SCHEMA,
  incidentsOfStoredTroubles,
  LOOKUP_INDEXES,
  addFailedDeliveryColumn,
  TEAM_SCHEMA,
  RULES_SCHEMA,
  RULE_LOG_SCHEMA,
  ROUTES_SCHEMA,
  TIMELINE_CUTS_SCHEMA,
];
