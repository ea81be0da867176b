/**
 * The team server's database as `team serve` and `team tokens` open it: PostgreSQL at `--database`, or
 * else PGlite in the data directory's `team-db` folder (made when missing), migrated to this version.
 */
import { join } from 'node:path';
import { type TeamDatabase, openPglite, openPostgres } from './driver';
import { migrateTeamDatabase } from './migrations';

/** The embedded database's folder inside the data directory. */
export const TEAM_DB_DIR = 'team-db';

export const describeTeamDatabase = (dataDir: string, url: string | undefined): string =>
  url === undefined ? `PGlite in ${join(dataDir, TEAM_DB_DIR)}` : `PostgreSQL at ${withoutPassword(url)}`;

/** A connection string as it may be printed: its password replaced. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(a connection string that is not a URL)';
  }
}

export async function openTeamDatabase(dataDir: string, url: string | undefined): Promise<TeamDatabase> {
  const db = url === undefined ? await openPglite(join(dataDir, TEAM_DB_DIR)) : await openPostgres(url);
  try {
    await migrateTeamDatabase(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
