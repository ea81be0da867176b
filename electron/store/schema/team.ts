/**
 * A team member's side of the team (docs/decisions.md "On call as a team: members"): the link to a
 * team server per org, and the log of the team's operations this member has — its own, waiting in the
 * outbox until the server took them, and everyone's pulled from the server. The acknowledgements and
 * snoozes tables stay what the window, the alerts and the API read: for a linked org they are derived
 * from this log (tables/teamLog.ts), in the transaction that adds to it.
 */
export const TEAM_SCHEMA = `
CREATE TABLE team_links (
  org_id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  member TEXT NOT NULL,
  role TEXT NOT NULL,
  -- The team token: sealed by the shell's secret store where it has one (the app), else as given.
  token TEXT NOT NULL,
  token_sealed INTEGER NOT NULL,
  -- The source that mirrors the org from the team server, and the org's own source as it was (JSON, or null).
  source_id TEXT NOT NULL,
  set_aside TEXT NOT NULL,
  -- The last team server number pulled, and the member's hybrid clock's latest reading.
  cursor INTEGER NOT NULL DEFAULT 0,
  clock TEXT,
  joined_at TEXT NOT NULL
);
CREATE TABLE team_log (
  op_id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  at TEXT NOT NULL,
  author TEXT NOT NULL,
  kind TEXT NOT NULL,
  -- What the operation decides: one failure's acknowledgement or one dataset's snooze (tables/teamLog.ts).
  target TEXT NOT NULL,
  payload TEXT NOT NULL,
  -- The team server's number, once pulled; 0 while only this member has it.
  seq INTEGER NOT NULL DEFAULT 0,
  -- 0 while it waits in the outbox.
  pushed INTEGER NOT NULL
);
CREATE INDEX team_log_latest ON team_log (org_id, target, at, author, op_id);
CREATE INDEX team_log_outbox ON team_log (org_id, at) WHERE pushed = 0;
`;
