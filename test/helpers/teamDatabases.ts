/**
 * The team server's database on both engines it runs on, for a test file: PGlite in memory, and a
 * database of its own on a throwaway PostgreSQL server (postgres.ts) started before the file's tests
 * and removed after them.
 */
import { afterAll, beforeAll } from 'vitest';
import { type TeamDatabase, openPglite, openPostgres } from '../../electron/store/teamDb/driver';
import { type TestPostgres, startPostgres } from './postgres';

export interface TeamDatabases {
  /** [engine's name, a new empty database on it]. */
  engines: [string, () => Promise<TeamDatabase>][];
  /** A second connection to the database `db` is on, as a second team server would have. */
  another(db: TeamDatabase): Promise<TeamDatabase>;
  /** The PostgreSQL server, to restart it. */
  postgres(): TestPostgres;
}

/** `durable`: the PostgreSQL server loses no acknowledged commit when killed (postgres.ts). */
export function useTeamDatabases(prefix: string, options: { durable?: boolean } = {}): TeamDatabases {
  let server: TestPostgres | undefined;
  let made = 0;
  beforeAll(async () => {
    server = await startPostgres(options);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  const urlOf = (name: string): string => server!.url.replace(/\/postgres$/, `/${name}`);
  return {
    engines: [
      ['PGlite', () => openPglite(null)],
      [
        'PostgreSQL',
        async () => {
          const admin = await openPostgres(server!.url);
          const name = `${prefix}_${(made += 1)}`;
          try {
            await admin.exec(`CREATE DATABASE ${name}`);
          } finally {
            await admin.close();
          }
          return openPostgres(urlOf(name));
        },
      ],
    ],
    postgres: () => server!,
    async another(db) {
      const [{ name }] = (await db.query<{ name: string }>('SELECT current_database() AS name')) as [
        { name: string },
      ];
      return openPostgres(urlOf(name));
    },
  };
}
