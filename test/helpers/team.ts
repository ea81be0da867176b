/**
 * A team on loopback for tests: a remote simulator, a team server (the engine as `team serve` runs it,
 * over a team database the test gives) mirroring it, and members (the engine as the app or `serve`
 * runs it, each with its own store) joined to it with their tokens. Every part runs for real; waits
 * between retries are shortened.
 */
import { type RunningEngine, runEngine } from '../../electron/engine/runEngine';
import { type RemoteSimulator, startRemoteSimulator } from '../../electron/demo/remote/server';
import { createManualClock } from '../../electron/demo/remote/clock';
import { registerTeamRoutes, teamTokenAuth } from '../../electron/api/teamRoutes';
import { startApiServer } from '../../electron/api/server';
import { Store, StoreBusyError } from '../../electron/store/database';
import { memorySettings } from '../../electron/store/tables/settings';
import { saveSource } from '../../electron/store/tables/sources';
import type { TeamDatabase } from '../../electron/store/teamDb/driver';
import { createTeamToken } from '../../electron/store/teamDb/tokens';
import { envSecretKeeper } from '../../electron/sync/secrets';
import { askTeamServer, joinTeam } from '../../electron/team/joining';
import { tempDir } from './cli';

export const TEAM_ORG = 'acme';
const SIM_KEY = 'team-sim-key';
export const FAST_RETRY = { minMs: 50, maxMs: 300 };

export interface TeamServer {
  engine: RunningEngine;
  store: Store;
  port: number;
  url: string;
  /** Stops the engine (the database stays open: a restart finds it as it was). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
}

export interface Member {
  name: string;
  engine: RunningEngine;
  store: Store;
  stop(): Promise<void>;
}

/** 2026-11-21T04:41:00Z: the simulated remote's time, fixed, so its org is the same on any date. */
const SIM_START = Date.UTC(2026, 10, 21, 4, 41);

/** The remote service with `datasets` datasets (several FAILED), its clock standing still. */
export async function startSimulator(datasets = 40): Promise<RemoteSimulator> {
  return startRemoteSimulator({
    port: 0,
    apiKey: SIM_KEY,
    datasets,
    seed: 5,
    // Enough failures for several tests to take one each.
    failRate: 0.3,
    clock: createManualClock(SIM_START),
  });
}

const now = () => new Date();

/** The team server for `simulator`'s org over `db` (migrated by the caller). */
export async function startTeamServer(simulator: RemoteSimulator, db: TeamDatabase): Promise<TeamServer> {
  const dataDir = tempDir('dh-team-server-');
  const store = await Store.open({ dataDir: null });
  saveSource(store, { id: 'remote', orgId: TEAM_ORG, baseUrl: simulator.url }, now());
  const start = (port: number) =>
    runEngine({
      purpose: 'serve',
      store,
      dataDir,
      settings: memorySettings(),
      port,
      now,
      secrets: envSecretKeeper({ DATASET_HEALTH_REMOTE_KEY: SIM_KEY }),
      logger: false,
      demoWhenNoSources: false,
      intervals: { pollMs: 1_000 },
      teamServer: { db },
    });
  const server: TeamServer = {
    engine: await start(0),
    store,
    port: 0,
    url: '',
    stop: () => server.engine.stop(),
    async restart() {
      server.engine = await start(server.port);
    },
  };
  server.port = server.engine.api.port;
  server.url = server.engine.api.url;
  return server;
}

/** A token for `member` of the team's org. */
export async function teamToken(db: TeamDatabase, member: string, role = 'member'): Promise<string> {
  return (await createTeamToken(db, { orgId: TEAM_ORG, member, role }, now())).token;
}

/** A desktop that joined the team server with `token` and runs its engine. */
export async function startMember(name: string, url: string, token: string): Promise<Member> {
  const dataDir = tempDir(`dh-member-${name}-`);
  const store = await Store.open({ dataDir: null });
  joinTeam(store, await askTeamServer(url, token), token, now());
  const engine = await runEngine({
    purpose: 'app',
    store,
    dataDir,
    settings: memorySettings(),
    port: 0,
    now,
    secrets: envSecretKeeper({}),
    logger: false,
    demoWhenNoSources: false,
    intervals: { pollMs: 1_000 },
    team: { backoff: FAST_RETRY },
  });
  return {
    name,
    engine,
    store,
    async stop() {
      await engine.stop();
      await store.close();
    },
  };
}

/**
 * Resolves once `check` holds, polling; fails with `what` after `timeoutMs`. A check that reads a store
 * while a sync commits in chunks (StoreBusyError) is asked again.
 */
export async function until(what: string, check: () => boolean, timeoutMs = 15_000): Promise<number> {
  const started = Date.now();
  const holds = (): boolean => {
    try {
      return check();
    } catch (error) {
      if (error instanceof StoreBusyError) return false;
      throw error;
    }
  };
  while (!holds()) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - started;
}

/** The org's FAILED datasets in a member's mirror, by id. */
export const failedIn = (member: Member): string[] =>
  member.store
    .all(`SELECT dataset_id FROM datasets WHERE org_id = ? AND status = 'FAILED' ORDER BY dataset_id`, [
      TEAM_ORG,
    ])
    .map((row) => String(row.dataset_id));

/**
 * A team server's routes alone (no sync) on port 0 over `db`, with team tokens as keys: for tests of the
 * exchange that need no mirrored org. `close` stops it and its store.
 */
export async function startTeamRoutes(db: TeamDatabase): Promise<{ url: string; close(): Promise<void> }> {
  const store = await Store.open({ dataDir: null });
  const server = await startApiServer({
    store,
    port: 0,
    logger: false,
    teamTokens: teamTokenAuth(db, now),
    extend: (app) => registerTeamRoutes(app, { db, now }),
  });
  return {
    url: server.url,
    async close() {
      await server.close();
      await store.close();
    },
  };
}
