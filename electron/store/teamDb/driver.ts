/**
 * The team server's database (docs/decisions.md "On call as a team: operations"): PostgreSQL through
 * `pg`, or PGlite (PostgreSQL compiled to WebAssembly, in-process) in the server's data directory when
 * no server is given. Both speak the same SQL; this is the little the team's code needs of either.
 *
 * Loaded only by the team server: the drivers are imported when a database is opened, so no other
 * command pays for them at start.
 */

import type { PoolClient } from 'pg';

export interface TeamSql {
  /** The rows of one statement, parameters as $1, $2, … */
  query<T extends object>(text: string, params?: unknown[]): Promise<T[]>;
  /** Runs statements separated by semicolons, without parameters (a migration). */
  exec(text: string): Promise<void>;
}

export interface TeamDatabase extends TeamSql {
  readonly engine: 'postgres' | 'pglite';
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (sql: TeamSql) => Promise<T>): Promise<T>;
  /**
   * Calls `onNotify` with each NOTIFY payload on `channel` (a plain name); resolves once listening.
   * A lost connection (the server restarted, the network dropped) is replaced and listens again, a
   * second later and on; `onResumed` is then called, since notifications sent meanwhile were missed.
   */
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    onResumed?: () => void,
  ): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

const CHANNEL = /^[a-z_][a-z0-9_]*$/;
/** How soon a lost listening connection is replaced. */
const RELISTEN_MS = 1_000;

function checkChannel(channel: string): void {
  if (!CHANNEL.test(channel)) throw new Error(`not a channel name: ${JSON.stringify(channel)}`);
}

/** A PostgreSQL server at `url` (postgres://user@host:port/database). */
export async function openPostgres(url: string): Promise<TeamDatabase> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // An idle connection the server drops is replaced at the next query; it must not end the process.
  pool.on('error', () => {});
  await pool.query('SELECT 1');
  return {
    engine: 'postgres',
    async query<T extends object>(text: string, params: unknown[] = []) {
      return (await pool.query(text, params)).rows as T[];
    },
    async exec(text: string) {
      await pool.query(text);
    },
    async transaction<T>(work: (sql: TeamSql) => Promise<T>) {
      const client = await pool.connect();
      // A checked-out client whose connection drops between two queries (the server restarted) emits
      // 'error' with no one listening, which would end the process: the next query fails instead.
      let broken: Error | undefined;
      const dropped = (error: Error): void => void (broken = error);
      client.on('error', dropped);
      try {
        await client.query('BEGIN');
        const sql: TeamSql = {
          query: async <R extends object>(text: string, params: unknown[] = []) =>
            (await client.query(text, params)).rows as R[],
          exec: async (text: string) => void (await client.query(text)),
        };
        const result = await work(sql);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.off('error', dropped);
        // A dropped connection goes, not back to the pool.
        client.release(broken);
      }
    },
    async listen(channel, onNotify, onResumed = () => {}) {
      checkChannel(channel);
      let stopped = false;
      let client: PoolClient | null = null;
      let retry: ReturnType<typeof setTimeout> | undefined;
      const connect = async (): Promise<void> => {
        const next = await pool.connect();
        next.on('notification', (message) => {
          if (message.channel === channel) onNotify(message.payload ?? '');
        });
        // A checked-out client's error has no other listener: unheard, it would end the process.
        next.on('error', () => {
          if (client === next) client = null;
          try {
            next.release(true);
          } catch {
            // Released already.
          }
          if (!stopped) retry = setTimeout(resume, RELISTEN_MS);
        });
        await next.query(`LISTEN ${channel}`);
        client = next;
      };
      const resume = (): void => {
        connect().then(
          () => (stopped ? undefined : onResumed()),
          () => {
            if (!stopped) retry = setTimeout(resume, RELISTEN_MS);
          },
        );
      };
      await connect();
      return async () => {
        stopped = true;
        clearTimeout(retry);
        const last = client;
        client = null;
        if (last === null) return;
        await last.query(`UNLISTEN ${channel}`).catch(() => {});
        last.release();
      };
    },
    close: () => pool.end(),
  };
}

/** PGlite in `dataDir` (made when missing), or in memory for null. */
export async function openPglite(dataDir: string | null): Promise<TeamDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(dataDir ?? undefined);
  return {
    engine: 'pglite',
    async query<T extends object>(text: string, params: unknown[] = []) {
      return (await db.query<T>(text, params)).rows;
    },
    async exec(text: string) {
      await db.exec(text);
    },
    transaction: <T>(work: (sql: TeamSql) => Promise<T>) =>
      db.transaction((tx) =>
        work({
          query: async <R extends object>(text: string, params: unknown[] = []) =>
            (await tx.query<R>(text, params)).rows,
          exec: async (text: string) => void (await tx.exec(text)),
        }),
      ),
    async listen(channel, onNotify) {
      checkChannel(channel);
      const stop = await db.listen(channel, onNotify);
      return () => stop();
    },
    close: () => db.close(),
  };
}
