/**
 * The work of `serve` (commands/serve.ts has its options), loaded when it runs: the engine, the local
 * API and the sync, which no other command's start pays for.
 */
import { openHeadlessSettings } from '../../store/tables/settings';
import { APP_VERSION } from '../../../shared/version';
import type { Logger } from 'pino';
import { PortInUseError } from '../../api/server';
import { createApiKey, listApiKeys } from '../../store/tables/apiKeys';
import { resolveDataDir } from '../../store/instance/dataDir';
import { RendererNotBuiltError } from '../../rpc/rendererDir';
import { listSources } from '../../store/tables/sources';
import { printable } from '../../store/tables/orgs';
import { type RunningEngine, runEngine } from '../../engine/runEngine';
import type { CycleEvent } from '../../../shared/sync';
import type { DatabaseStatus } from '../../../shared/database';
import { databaseStatus, watchDatabaseStatus } from '../../rpc/database';
import { envSecretKeeper } from '../../sync/secrets';
import { AnnouncementHook, hookFailure } from '../../alerts/hook';
import type { Announcement } from '../../alerts/types';
import { CliError, type CliIo } from '../io';
import { cliLogger } from '../logger';
import { openDataDir, stderrStoreLog } from '../openStore';
import { describeStorage } from '../storageLine';
import type { ServeOptions } from './serve';
import type { TeamDatabase } from '../../store/teamDb/driver';

export async function serve(options: ServeOptions, io: CliIo): Promise<void> {
  const dataDir = resolveDataDir(options.dataDir, io.env);
  const logger = cliLogger(io);
  let storeOpen = false;
  // The store's own lines: plain warnings while it opens (a file moved aside); once open, its account
  // of a disk problem goes to the structured log beside the `storage:` line below, as sync failures do.
  const plain = stderrStoreLog(io);
  const opened = await openDataDir(dataDir, 'serve', io, {
    warn: (message) => (storeOpen ? logger.warn({ dataDir }, message) : plain.warn(message)),
    error: (message) => (storeOpen ? logger.error({ dataDir }, message) : plain.error(message)),
  });
  storeOpen = true;
  const { store } = opened;
  const hook = options.onFailed
    ? new AnnouncementHook(options.onFailed, {
        env: io.env,
        onResult: (announcement, result) => {
          const failure = hookFailure(result);
          if (failure === null) return;
          logger.warn({ command: options.onFailed, result }, `--on-failed command ${failure}`);
          io.stderr(`--on-failed command ${failure} (alert: ${printable(announcement.title)})\n`);
        },
      })
    : undefined;
  let engine: RunningEngine;
  let teamDb: TeamDatabase | undefined;
  try {
    if (options.team) {
      // Loaded only for `team serve`: the PostgreSQL client and PGlite are no other command's cost.
      const { openTeamDatabase, describeTeamDatabase } = await import('../../store/teamDb/open');
      const where = describeTeamDatabase(dataDir, options.team.database);
      teamDb = await openTeamDatabase(dataDir, options.team.database).catch((error: unknown) => {
        throw new CliError(`cannot open the team database (${where}): ${(error as Error).message}`);
      });
      io.stderr(`Team database: ${where}.\n`);
    }
    const listen = options.team?.listen;
    if (listen)
      io.stderr(
        `Warning: listening on ${listen.address} beyond this machine, in plain HTTP: team tokens and your org's data cross the network readable by anyone on the way. Put a TLS proxy in front (Caddy, nginx) and give members its https:// address.\n`,
      );
    engine = await runEngine({
      teamServer: teamDb ? { db: teamDb } : undefined,
      listen,
      purpose: 'serve',
      store,
      dataDir,
      settings: openHeadlessSettings(
        dataDir,
        store,
        () => io.now(),
        (movedTo) => io.stderr(`The settings file was not valid: moved to ${movedTo}; using the defaults.\n`),
      ),
      port: options.port,
      ui: options.ui === true,
      version: APP_VERSION,
      now: () => io.now(),
      secrets: envSecretKeeper(io.env, {
        shared: listSources(store).filter((source) => source.enabled).length <= 1,
      }),
      logger,
      rateLimit: { perSecond: options.rateLimit, burst: options.rateLimit * 2 },
      intervals: {
        pollMs: options.pollSeconds === undefined ? undefined : options.pollSeconds * 1000,
        crawlMs: options.crawlMinutes === undefined ? undefined : options.crawlMinutes * 60_000,
      },
      demoWhenNoSources: options.demo === true,
      announce: (announcement) => {
        const label = announcementLabel(announcement);
        const level = announcement.kind === 'contact-lost' ? 'warn' : 'info';
        logger[level]({ alert: announcement }, `${label}: ${announcement.title}`);
        io.stderr(`${label}: ${printable(announcement.title)} — ${printable(announcement.body)}\n`);
        void hook?.run(announcement);
      },
    });
  } catch (error) {
    await teamDb?.close();
    await opened.close();
    if (error instanceof PortInUseError || error instanceof RendererNotBuiltError)
      throw new CliError(error.message);
    throw error;
  }
  const { api, sync, demo } = engine;
  io.stdout(`Local API listening on ${api.url}\n`);
  if (engine.uiUrl) io.stdout(`Web UI: ${engine.uiUrl}\n`);
  if (demo) {
    io.stderr(
      `No sources configured: mirroring the built-in demo (a simulated remote at ${demo.simulator.url}).\n`,
    );
    if (!listApiKeys(store, demo.source.orgId).some((key) => key.revokedAt === null)) {
      const key = createApiKey(store, demo.source.orgId, 'demo', io.now());
      io.stderr(`Demo API key (shown once): ${key.key} (org ${demo.source.orgId})\n`);
    }
  }
  io.stderr(`Data directory: ${dataDir}\n`);
  if (teamDb)
    io.stderr(
      `Team server: members join with \`dataset-health team join ${api.url} --token <token>\`; make a token with \`dataset-health team tokens create --org <org> --member <name>\`.\n`,
    );
  sync.onCycle((event) => {
    logCycle(logger, event);
    const line = describeCycle(event);
    if (line !== null) io.stderr(`${line}\n`);
  });
  // From "writes work": a disk that refused while the engine started (its first commits) is said now.
  let storage: DatabaseStatus = { state: 'open', dataDir, opening: null, writeProblem: null };
  const reportStorage = (status: DatabaseStatus) => {
    const line = describeStorage(storage, status);
    storage = status;
    if (line !== null) io.stderr(`${line}\n`);
  };
  reportStorage(databaseStatus(store, dataDir));
  watchDatabaseStatus(store, dataDir, reportStorage);
  const sources = sync.states();
  io.stderr(
    sources.length === 0
      ? 'No sources to sync: add one with `dataset-health sources add --org <org> --remote <url>`.\n'
      : `Syncing ${sources.map((s) => `${s.sourceId} → org ${s.orgId}`).join(', ')}.\n`,
  );
  const signal = await io.stopRequested();
  io.stderr(`${signal}: stopping…\n`);
  try {
    await engine.stop();
    // The last alerts' hooks finish (each within its timeout) before the process ends.
    await hook?.idle();
  } finally {
    await teamDb?.close();
    await opened.close().catch((error: unknown) => {
      // Stopping is the last chance to write what waits in memory: say what could not be saved.
      const refused = databaseStatus(store, dataDir).writeProblem;
      if (refused)
        throw new CliError(
          `stopped with ${refused.pendingBytes.toLocaleString('en-US')} bytes of committed changes unsaved: the disk still refuses writes to ${dataDir} (see the storage: line above)`,
        );
      throw error;
    });
  }
}

function logCycle(logger: Logger, event: CycleEvent): void {
  const fields = {
    source: event.sourceId,
    org: event.orgId,
    kind: event.kind,
    counts: event.counts,
    transitions: event.transitions.length,
  };
  if (event.outcome === 'ok') logger.info(fields, `sync ${event.kind} of ${event.sourceId} done`);
  else
    logger.warn(
      { ...fields, error: event.error },
      `sync ${event.kind} of ${event.sourceId} failed: ${event.error}`,
    );
}

/** A line for the terminal: every crawl and failure, and polls that changed something. */
export function describeCycle(event: CycleEvent): string | null {
  const c = event.counts;
  if (event.outcome === 'failed')
    return `sync ${event.sourceId}: ${event.kind} failed: ${printable(event.error ?? '')}`;
  if (event.kind === 'poll' && event.transitions.length === 0) return null;
  const failed = event.transitions.filter((t) => t.to === 'FAILED').length;
  return (
    `sync ${event.sourceId}: ${event.kind} ok, ${c.received} datasets read, ${c.written} written, ` +
    `${c.removed} removed, ${event.transitions.length} status changes (${failed} to FAILED)`
  );
}

/** How a log line names an announcement: failures (one, a cause, a summary) and recoveries are alerts. */
function announcementLabel(announcement: Announcement): string {
  if (announcement.kind === 'reminder') return 'reminder';
  if (announcement.kind === 'contact-lost' || announcement.kind === 'contact-regained') return 'contact';
  return 'alert';
}
