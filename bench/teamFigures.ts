/**
 * The team's figures (docs/architecture.md#performance-budgets, docs/decisions.md "On call as a team"):
 * a team server (the engine as `team serve` runs it, on a real PostgreSQL server when Debian's package
 * is here, else PGlite) mirroring a 10k org from the remote simulator, and 50 members: two whole
 * desktops (engines mirroring the org through the team server) and 48 that only exchange operations
 * (each its own store and exchange, as a desktop's). Measured, on loopback, in this one process:
 *
 * - an operation made by one member until another has applied it, p50 and p99 (budget: p99 ≤ 2 s);
 * - the remote service's requests while the 50 are connected: the team server's polls, no member's;
 * - operations the server stores per second with ten members pushing and all fifty pulling;
 * - a new member's pull of 10,000 operations;
 * - PostgreSQL's rows and bytes per 1,000 operations.
 */
import { runEngine, type RunningEngine } from '../electron/engine/runEngine';
import { startRemoteSimulator } from '../electron/demo/remote/server';
import { Store } from '../electron/store/database';
import { memorySettings } from '../electron/store/tables/settings';
import { saveSource } from '../electron/store/tables/sources';
import { teamLinkOf } from '../electron/store/tables/teamLinks';
import { operationsOf } from '../electron/store/tables/teamLog';
import { type TeamDatabase, openPglite, openPostgres } from '../electron/store/teamDb/driver';
import { migrateTeamDatabase } from '../electron/store/teamDb/migrations';
import { appendOperations } from '../electron/store/teamDb/operations';
import { createTeamToken } from '../electron/store/teamDb/tokens';
import { envSecretKeeper } from '../electron/sync/secrets';
import { TeamExchange } from '../electron/team/exchange';
import { askTeamServer, joinTeam } from '../electron/team/joining';
import { type Intent, recordOwn } from '../electron/team/localOperations';
import { operationId } from '../electron/team/operationId';
import type { TeamOperation } from '../shared/team';
import { type TestPostgres, startPostgres } from '../test/helpers/postgres';
import { mirrorTwoTroubles } from '../test/helpers/teamMirror';
import { makeTempDir, removeTempDir } from './cleanup';
import { type Report, bytes, ms } from './report';
import { summarize } from './stats';

const SIZE = 10_000;
const ORG = 'bench-team';
const KEY = 'bench-team-remote-key';
const MEMBERS = 50;
const DESKTOPS = 2;
const SAMPLES = 200;
const POLL_MS = 5_000;
/** The budget: an operation visible on another member within 2 s (p99), on loopback. */
const VISIBLE_P99_MS = 2_000;

/** A member that only exchanges: its store, its exchange, and a wait for the next operations it applies. */
interface Exchanger {
  name: string;
  store: Store;
  exchange: TeamExchange;
  applied: () => Promise<void>;
}

const now = () => new Date();
const random = (count: number) => crypto.getRandomValues(new Uint8Array(count));

async function teamDatabase(
  log: (line: string) => void,
): Promise<{ db: TeamDatabase; postgres?: TestPostgres; engine: string }> {
  try {
    const postgres = await startPostgres({ durable: true });
    const db = await openPostgres(postgres.url);
    return { db, postgres, engine: 'PostgreSQL' };
  } catch (error) {
    log(`  no PostgreSQL server here (${(error as Error).message.split('\n')[0]}): on PGlite`);
    return { db: await openPglite(null), engine: 'PGlite' };
  }
}

export async function teamFigures(report: Report, log: (line: string) => void): Promise<void> {
  const { db, postgres, engine } = await teamDatabase(log);
  const simulator = await startRemoteSimulator({ port: 0, apiKey: KEY, datasets: SIZE, seed: 1 });
  const dirs: string[] = [];
  const stores: Store[] = [];
  const engines: RunningEngine[] = [];
  const exchangers: Exchanger[] = [];
  try {
    await migrateTeamDatabase(db);
    log(`  the team server (${engine}) mirrors ${SIZE.toLocaleString('en-US')} datasets from the simulator…`);
    const serverStore = await Store.open({ dataDir: null });
    stores.push(serverStore);
    saveSource(serverStore, { id: 'remote', orgId: ORG, baseUrl: simulator.url }, now());
    const engineOptions = (store: Store, purpose: string) => {
      const dataDir = makeTempDir('dataset-health-bench-team-');
      dirs.push(dataDir);
      return {
        purpose,
        store,
        dataDir,
        settings: memorySettings(),
        port: 0,
        now,
        logger: false as const,
        demoWhenNoSources: false,
        // Polls every 5 s (not every minute), so the bench's half minute sees several of them.
        intervals: { pollMs: POLL_MS },
      };
    };
    const server = await runEngine({
      ...engineOptions(serverStore, 'serve'),
      secrets: envSecretKeeper({ DATASET_HEALTH_REMOTE_KEY: KEY }),
      teamServer: { db },
    });
    engines.push(server);
    await until(() => serverStore.value('SELECT count(*) FROM datasets') === SIZE, 300_000);

    log(
      `  ${MEMBERS} members join: ${DESKTOPS} desktops mirroring through the team server, ${MEMBERS - DESKTOPS} exchanging only…`,
    );
    for (let index = 0; index < MEMBERS; index += 1) {
      const name = `member-${String(index).padStart(2, '0')}`;
      const token = (await createTeamToken(db, { orgId: ORG, member: name, role: 'member' }, now())).token;
      const store = await Store.open({ dataDir: null });
      stores.push(store);
      const identity = await askTeamServer(server.api.url, token);
      if (index < DESKTOPS) {
        joinTeam(store, identity, token, now());
        engines.push(await runEngine({ ...engineOptions(store, 'app'), secrets: envSecretKeeper({}) }));
        continue;
      }
      await mirrorTwoTroubles(store, ORG);
      joinTeam(store, identity, token, now());
      let wake: () => void = () => {};
      const exchange = new TeamExchange({
        store,
        link: teamLinkOf(store, ORG)!,
        token,
        now,
        onApplied: () => wake(),
      });
      exchange.start();
      exchangers.push({
        name,
        store,
        exchange,
        applied: () => new Promise<void>((resolve) => (wake = resolve)),
      });
    }
    await until(() => engines.slice(1).every((desk) => desk.team.statuses()[0]?.state === 'online'), 300_000);
    await until(() => exchangers.every((member) => member.exchange.status().state === 'online'), 60_000);

    // The remote's requests from here on: the team server's polls alone, whatever the members do.
    const remoteBefore = simulator.requests.length;
    const windowStarted = performance.now();

    log(`  ${SAMPLES} operations, each from one member until another has applied it…`);
    const latencies: number[] = [];
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      const author = exchangers[sample % exchangers.length]!;
      const observer = exchangers[(sample * 7 + 3) % exchangers.length]!;
      if (observer === author) continue;
      const seen = observer.applied();
      const started = performance.now();
      author.store.transaction(() =>
        recordOwn(author.store, teamLinkOf(author.store, ORG)!, [snooze(sample)], { now }),
      );
      author.exchange.nudge();
      await seen;
      latencies.push(performance.now() - started);
    }
    const visible = summarize(latencies);
    report.info(
      'team: operation visible on another member, p50',
      SIZE,
      ms(visible.p50),
      `${MEMBERS} members, ${engine}`,
    );
    report.atMost('team: operation visible on another member, p99', SIZE, visible.p99, VISIBLE_P99_MS, ms, {
      note: `${visible.n} operations, max ${ms(visible.max)}; ${MEMBERS} members on loopback, ${engine}`,
    });

    log('  ten members push as fast as they can for 10 s, all fifty pulling…');
    const stored = async () =>
      Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM team_operations'))[0]!.n);
    const before = await stored();
    const deadline = performance.now() + 10_000;
    await Promise.all(
      exchangers.slice(0, 10).map(async (member, lane) => {
        for (let made = 0; performance.now() < deadline; made += 1) {
          member.store.transaction(() =>
            recordOwn(member.store, teamLinkOf(member.store, ORG)!, [snooze(lane * 100_000 + made)], { now }),
          );
          member.exchange.nudge();
          await member.exchange.idle();
        }
      }),
    );
    const perSecond = (await stored()) - before;
    report.info(
      'team: operations stored per second',
      SIZE,
      `${(perSecond / 10).toFixed(0)}/s`,
      'ten pushing, fifty pulling each',
    );

    const minutes = (performance.now() - windowStarted) / 60_000;
    const remote = simulator.requests.length - remoteBefore;
    const onePoller = 60_000 / POLL_MS;
    report.info(
      'team: requests to the remote service per minute, 50 members',
      SIZE,
      (remote / minutes).toFixed(1),
      `${remote} in ${(minutes * 60).toFixed(0)} s: the team server's polls (one every ${POLL_MS / 1000} s: ${onePoller}/min); 50 desktops polling the remote would make ${MEMBERS * onePoller}/min`,
    );

    log('  10,000 operations stored, then a new member pulls them all…');
    const sizeBefore = await relationBytes(db);
    const rowsBefore = await stored();
    for (let batch = 0; batch < 20; batch += 1)
      await appendOperations(
        db,
        Array.from({ length: 500 }, (_, index) => seeded(batch * 500 + index)),
      );
    const added = (await stored()) - rowsBefore;
    report.info(
      'team: PostgreSQL rows and bytes per 1,000 operations',
      SIZE,
      `1,000 rows, ${bytes(((await relationBytes(db)) - sizeBefore) / (added / 1000))}`,
      `one row per operation: team_operations with its indexes, ${engine}, acknowledgements with a 55-character note`,
    );
    const fresh = await Store.open({ dataDir: null });
    stores.push(fresh);
    await mirrorTwoTroubles(fresh, ORG);
    const token = (await createTeamToken(db, { orgId: ORG, member: 'newcomer', role: 'member' }, now()))
      .token;
    joinTeam(fresh, await askTeamServer(server.api.url, token), token, now());
    const newcomer = new TeamExchange({ store: fresh, link: teamLinkOf(fresh, ORG)!, token, now });
    const pulled = performance.now();
    newcomer.nudge();
    await newcomer.idle();
    const pullMs = performance.now() - pulled;
    const count = operationsOf(fresh, ORG).length;
    await newcomer.stop();
    report.info(
      'team: a new member pulls every operation',
      SIZE,
      ms(pullMs),
      `${count.toLocaleString('en-US')} operations, ${(count / (pullMs / 1000)).toFixed(0)}/s, applied into its store`,
    );
  } finally {
    for (const member of exchangers) await member.exchange.stop();
    for (const running of engines.reverse()) await running.stop().catch(() => undefined);
    for (const store of stores) await store.close().catch(() => undefined);
    await simulator.close();
    await db.close();
    await postgres?.stop();
    for (const dir of dirs) removeTempDir(dir);
  }
}

/** A snooze of one of the 10k datasets: a small operation, as most are. */
function snooze(n: number): Intent {
  return {
    kind: 'snooze',
    payload: {
      datasetId: `ds-${n % SIZE}`,
      kind: '4h',
      until: new Date(Date.now() + 4 * 3_600_000).toISOString(),
      deliveryId: null,
    },
  };
}

/** An acknowledgement with a note, by someone, stored straight into the team's database. */
function seeded(n: number): TeamOperation {
  return {
    opId: operationId(Date.now(), random),
    orgId: ORG,
    author: 'seeder',
    at: `${new Date().toISOString()}#${String(n % 10_000).padStart(4, '0')}`,
    kind: 'acknowledge',
    payload: {
      datasetId: `ds-${n % SIZE}`,
      deliveryId: `d-${n}`,
      status: 'FAILED',
      note: 'vendor ticket 4711: the supplier rotated its credentials',
      causeId: null,
    },
  };
}

async function relationBytes(db: TeamDatabase): Promise<number> {
  const [row] = await db.query<{ n: string }>("SELECT pg_total_relation_size('team_operations') AS n");
  return Number(row!.n);
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      if (check()) return;
    } catch {
      // A store busy with a sync's chunked commit: asked again.
    }
    if (performance.now() > deadline) throw new Error('timed out waiting for the team to be ready');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
