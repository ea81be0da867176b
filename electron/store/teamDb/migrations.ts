/**
 * The team database's schema, in versions (docs/decisions.md "On call as a team: operations"). Every
 * `team serve` migrates at start; several may start at once on one PostgreSQL, so the migration holds
 * an advisory lock and the second finds the work done.
 */
import type { TeamDatabase } from './driver';

/** Each entry one version; append only. */
export const TEAM_MIGRATIONS: readonly string[] = [
  `CREATE TABLE team_operations (
     -- The order operations were stored in, per org the order a pull reads them in (operations.ts).
     seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     op_id uuid NOT NULL UNIQUE,
     org_id text NOT NULL,
     author text NOT NULL,
     at text NOT NULL,
     kind text NOT NULL,
     payload jsonb NOT NULL,
     received_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE INDEX team_operations_by_org ON team_operations (org_id, seq);`,
  // Who may push and pull (tokens.ts): one token per member and org, stored as its SHA-256 only.
  `CREATE TABLE team_tokens (
     id text PRIMARY KEY,
     org_id text NOT NULL,
     member text NOT NULL,
     role text NOT NULL CHECK (role IN ('member', 'viewer')),
     hash bytea NOT NULL UNIQUE,
     created_at text NOT NULL,
     last_used_at text,
     revoked_at text
   );`,
];

/** Any number taken by this app alone: the lock migrations hold. */
const MIGRATION_LOCK = 4_711_026;

/** Brings the database to the latest version; refuses one made by a newer app. Returns the version. */
export async function migrateTeamDatabase(db: TeamDatabase): Promise<number> {
  return db.transaction(async (sql) => {
    await sql.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await sql.query('CREATE TABLE IF NOT EXISTS team_schema (version integer NOT NULL)');
    const [row] = await sql.query<{ version: number }>('SELECT version FROM team_schema');
    const from = row?.version ?? 0;
    if (from > TEAM_MIGRATIONS.length)
      throw new Error(
        `the team database is at version ${from}, made by a newer Dataset Health (this one knows ${TEAM_MIGRATIONS.length}): upgrade every team server`,
      );
    for (const step of TEAM_MIGRATIONS.slice(from)) await sql.exec(step);
    if (row === undefined)
      await sql.query('INSERT INTO team_schema (version) VALUES ($1)', [TEAM_MIGRATIONS.length]);
    else await sql.query('UPDATE team_schema SET version = $1', [TEAM_MIGRATIONS.length]);
    return TEAM_MIGRATIONS.length;
  });
}
