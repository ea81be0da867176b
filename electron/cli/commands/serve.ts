/**
 * `serve`: the engine without a window — the local API on 127.0.0.1, the sync loop of every enabled
 * source, `runtime.json` for scripts, until SIGINT/SIGTERM; then stop the sync (a commit in progress
 * rolls back), persist, remove the runtime file and exit 0 (docs/architecture.md#the-cli).
 */
import { openHeadlessSettings } from '../../store/settings';
import { APP_VERSION } from '../../../shared/version';
import { Command } from 'commander';
import type { Logger } from 'pino';
import { DEFAULT_RATE_LIMIT } from '../../api/app';
import { PortInUseError } from '../../api/server';
import { createApiKey, listApiKeys } from '../../store/apiKeys';
import { resolveDataDir } from '../../store/dataDir';
import { removeRuntimeFile, writeRuntimeFile } from '../../store/runtimeFile';
import { INTERVAL_LIMITS } from '../../../shared/settings';
import { RendererNotBuiltError } from '../../rpc/rendererDir';
import { listSources } from '../../store/sources';
import { printable } from '../../store/orgs';
import { type RunningEngine, runEngine } from '../../engine/runEngine';
import type { CycleEvent } from '../../../shared/sync';
import type { DatabaseStatus } from '../../../shared/database';
import { databaseStatus, watchDatabaseStatus } from '../../rpc/database';
import { envSecretStore } from '../../sync/secrets';
import { AnnouncementHook, hookFailure } from '../../alerts/hook';
import type { Announcement } from '../../alerts/types';
import { CliError, type CliIo } from '../io';
import { cliLogger } from '../logger';
import { openDataDir, stderrStoreLog } from '../openStore';
import { describeStorage } from '../storageLine';
import { dataDirOption, integerOption } from '../options';

interface ServeOptions {
  dataDir?: string;
  port?: number;
  demo?: boolean;
  ui?: boolean;
  rateLimit: number;
  pollSeconds?: number;
  crawlMinutes?: number;
  onFailed?: string;
}

export function serveCommand(io: CliIo): Command {
  return new Command('serve')
    .description('run the engine without a window: the local v2 API and the sync loop, until Ctrl+C')
    .addOption(dataDirOption())
    .option(
      '--port <n>',
      'port on 127.0.0.1 (0 picks a free one; default: the stored setting, 47800)',
      integerOption(0, 65535),
    )
    .option('--demo', 'with no sources configured, mirror a live simulated remote org (and print a key)')
    .option('--ui', 'also serve the window as a web UI on the same port (prints its one-time link)')
    .option(
      '--rate-limit <n>',
      'requests per second per key (bursts of twice as many)',
      integerOption(1, 1_000_000),
      DEFAULT_RATE_LIMIT.perSecond,
    )
    .option(
      '--poll-seconds <n>',
      'fast poll interval (default 60)',
      integerOption(...INTERVAL_LIMITS.pollSeconds),
    )
    .option(
      '--crawl-minutes <n>',
      'full crawl interval (default 15)',
      integerOption(...INTERVAL_LIMITS.crawlMinutes),
    )
    .option(
      '--on-failed <command>',
      'run COMMAND (through the shell) for each alert, reminder and contact notice, with it as JSON on stdin',
    )
    .action((options: ServeOptions) => serve(options, io));
}

async function serve(options: ServeOptions, io: CliIo): Promise<void> {
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
  try {
    engine = await runEngine({
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
      secrets: envSecretStore(io.env, {
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
    await opened.close();
    if (error instanceof PortInUseError || error instanceof RendererNotBuiltError)
      throw new CliError(error.message);
    throw error;
  }
  const { api, sync, demo } = engine;
  writeRuntimeFile(dataDir, { apiUrl: api.url, pid: process.pid, startedAt: io.now().toISOString() });
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
    removeRuntimeFile(dataDir);
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
