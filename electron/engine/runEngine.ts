/**
 * The running engine as both the app and `serve` start it: the sync loop of every enabled source (or,
 * with none configured and `demoWhenNoSources`, the built-in demo: a simulated remote in-process), the
 * local API reading through to the remotes for tasks never synced, and the RPC handlers and events the
 * window uses (over IPC in the app; over HTTP on the API's port with `ui`, for `serve --ui`). Stored
 * settings apply unless the command line gave a value. It keeps the instance's files in the data
 * directory for both shells: `control.json` once the control channel is open, `runtime.json` once all
 * runs; `stop()` removes both. Stopping: see `stop()` below.
 *
 * docs/architecture.md#layers: this is the engine's composition root, the one folder above api/, rpc/, sync/, alerts/ and
 * demo/ that wires them together; both shells (`main/`, `cli/`) call it and nothing below imports it.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { RpcHandlers } from '../../shared/rpc';
import { defaultRuleSet } from '../../shared/rules';
import { RouteDeliverer } from '../routes/deliverer';
import { type Settings, incidentGapMs } from '../../shared/settings';
import type { RateLimitOptions } from '../api/rateLimit';
import { type ApiServer, startApiServer } from '../api/server';
import { type BuiltInDemo, DEMO_INTERVALS, startBuiltInDemo } from '../demo/remote/builtIn';
import { type Dispatch, createDispatch } from '../rpc/dispatch';
import { type EventHub, createEventHub } from '../rpc/events';
import { createRpcHandlers } from '../rpc/handlers';
import { findRendererDir } from '../rpc/rendererDir';
import { UiSessions } from '../rpc/sessions';
import type { Store } from '../store/database';
import type { SettingsFile } from '../store/tables/settings';
import { Alerter } from '../alerts/alerter';
import { NO_OVERDUE, type TrayOverdue } from '../alerts/trayState';
import type { SourceState } from '../../shared/sync';
import type { Announcement } from '../alerts/types';
import { listSources } from '../store/tables/sources';
import { SourcesSync, type SyncSettings } from '../sync/sourcesSync';
import { OnCallKnowledge } from '../knowledge/service';
import type { SecretKeeper } from '../sync/secrets';
import { type ControlChannel, registerControl } from '../control/server';
import {
  keepControlFile,
  newControlSecret,
  removeControlFile,
  writeControlFile,
} from '../store/instance/controlFile';
import { removeRuntimeFile, writeRuntimeFile } from '../store/instance/runtimeFile';
import type { TeamDatabase } from '../store/teamDb/driver';
import { registerTeamRoutes, teamTokenAuth } from '../api/teamRoutes';
import { TeamMembers, withTeamTokens } from './teamMembers';
import { applyTeamLog } from './teamServerLog';
import type { DesktopStatus } from '../../shared/views';

export interface EngineOptions {
  store: Store;
  dataDir: string;
  /** The local API's port; undefined: the stored setting. */
  port?: number;
  now: () => Date;
  secrets: SecretKeeper;
  logger?: FastifyBaseLogger | false;
  rateLimit?: RateLimitOptions;
  /** Intervals given on the command line (they win over the stored settings). */
  intervals?: { pollMs?: number; crawlMs?: number };
  /** With no source configured, mirror the built-in demo (the app; `serve --demo`). */
  demoWhenNoSources: boolean;
  /** Serve the built renderer and the RPC over HTTP on the API's port (`serve --ui`). */
  ui?: boolean;
  version?: string;
  /** The settings file (`conf` headless, electron-store in the app). */
  settings: SettingsFile;
  /** The user's time zone for quiet hours (default: the system's). */
  timeZone?: string;
  /** Hears every announcement from the first cycle on (notifications in the app; the log headless). */
  announce?: (announcement: Announcement) => void;
  /** Who runs the engine (`serve`, `app`), for the CLI's messages about it. */
  purpose: string;
  /** The desktop app's habits as its system took them, for Settings (the app only). */
  desktop?: () => DesktopStatus;
  /** `team serve`: the team's database; the API then also serves the team's routes and accepts team tokens. */
  teamServer?: { db: TeamDatabase };
  /**
   * `team serve --listen`: the address the API listens on beyond loopback, and the host names members
   * reach it by (its Host check serves those too).
   */
  listen?: { address: string; hostNames: readonly string[] };
  /** How a member reaches its team server (tests: waits shorter than the default 1 s to 30 s). */
  team?: { fetch?: typeof fetch; backoff?: { minMs: number; maxMs: number } };
}

export interface RunningEngine {
  api: ApiServer;
  sync: SourcesSync;
  /** The built-in demo, when it runs. */
  demo: BuiltInDemo | undefined;
  rpc: { handlers: RpcHandlers; dispatch: Dispatch; events: EventHub };
  alerts: Alerter;
  /** The on-call layer (docs/architecture.md#the-on-call-layer): deadlines, upcoming, overdue, statistics, handoff. */
  knowledge: OnCallKnowledge;
  /** This engine as a member of teams: one exchange per linked org. */
  team: TeamMembers;
  /** With `ui`: the web UI's address with its one-time token. */
  uiUrl: string | undefined;
  stop(): Promise<void>;
}

/** The sync settings in force: command-line values over stored ones. */
function syncSettings(stored: Settings, flags: EngineOptions['intervals']): SyncSettings {
  return {
    intervals: {
      pollMs: flags?.pollMs ?? stored.intervals.pollSeconds * 1000,
      crawlMs: flags?.crawlMs ?? stored.intervals.crawlMinutes * 60_000,
    },
    deliveriesPerDataset: stored.data.retentionDeliveries,
    incidentGapMs: incidentGapMs(stored),
  };
}

/** The tray's overdue (unverified) count over every synced org, and the org with the most deadlines. */
export async function overdueInTotal(
  knowledge: OnCallKnowledge,
  states: readonly SourceState[],
): Promise<TrayOverdue> {
  const total: TrayOverdue = { ...NO_OVERDUE };
  let most = 0;
  for (const orgId of new Set(states.map((state) => state.orgId))) {
    const summary = await knowledge.overdue(orgId);
    total.deadlines += summary.deadlines;
    total.datasets += summary.datasets.length;
    if (summary.deadlines > most) [most, total.orgId] = [summary.deadlines, orgId];
  }
  return total;
}

export async function runEngine(options: EngineOptions): Promise<RunningEngine> {
  const { store } = options;
  // A source that mirrors an org from its team server presents the member's team token as its key.
  const secrets = withTeamTokens(store, options.secrets);
  const rendererDir = options.ui ? findRendererDir() : undefined;
  const settings = options.settings.read();
  const demo =
    options.demoWhenNoSources && listSources(store).length === 0
      ? await startBuiltInDemo({ now: options.now })
      : undefined;
  const sync = new SourcesSync({
    store,
    secrets,
    now: options.now,
    ...syncSettings(settings, options.intervals),
    builtIn: demo ? [{ source: demo.source, apiKey: demo.apiKey, intervals: DEMO_INTERVALS }] : [],
    // A large crawl's changes wait on disk beside the database, not in a /tmp that may live in memory.
    spool: { dir: options.dataDir },
  });
  // One on-call layer for the window, the CLI and the local API: one history in memory, one clock.
  const knowledge = new OnCallKnowledge({ store, now: options.now, sources: () => sync.states() });
  const overridden = [
    ...(options.port !== undefined ? ['api.port'] : []),
    ...(options.intervals?.pollMs !== undefined ? ['intervals.pollSeconds'] : []),
    ...(options.intervals?.crawlMs !== undefined ? ['intervals.crawlMinutes'] : []),
  ];
  const runtime = { apiUrl: '', dataDir: options.dataDir, version: options.version ?? '0.0.0' };
  const changedHere = () => {
    void alerts.refresh().catch(reportAlertsError);
    // An acknowledgement or snooze of a team's org waits in the outbox: pushed now.
    team.nudge();
  };
  const team = new TeamMembers({
    store,
    secrets,
    now: options.now,
    fetch: options.team?.fetch,
    backoff: options.team?.backoff,
    onApplied: () => void alerts.refresh().catch(reportAlertsError),
    onStatus: (status) => events.emit('team.status', status),
    log: (message) => options.logger && options.logger.warn({}, message),
  });
  const handlers = createRpcHandlers({
    store,
    sync,
    secrets,
    now: options.now,
    runtime,
    overridden,
    reloadSync: () => reloadSync(),
    settings: options.settings,
    knowledge,
    alertsChanged: changedHere,
    // Settings → Rules: a dead letter sent again goes out now, not at the deliverer's next due row.
    routesChanged: () => routes.wake(),
    team,
    desktop: options.desktop,
  });
  const reportAlertsError = (error: unknown) =>
    options.logger ? options.logger.error({ err: error }, 'alerts failed') : undefined;
  // What the rules send to hooks and webhooks, each at most once (docs/decisions.md "Routes: at most once").
  const routes = new RouteDeliverer({
    store,
    now: options.now,
    log: options.logger
      ? {
          warn: (message) => options.logger && options.logger.warn({}, message),
          error: (message) => options.logger && options.logger.error({}, message),
        }
      : undefined,
    onSettled: (row) => {
      if (row.state === 'dead' && options.logger)
        options.logger.warn(
          { route: row.routeId, notification: row.notificationId },
          `route ${row.routeId} gave up: ${row.lastError ?? 'unknown error'} (dataset-health rules dead-letters)`,
        );
    },
  });
  const alerts = new Alerter({
    store,
    sync,
    settings: () => options.settings.read(),
    now: options.now,
    timeZone: options.timeZone,
    onError: reportAlertsError,
    overdue: () => overdueInTotal(knowledge, sync.states()),
    decisionsSaved: () => routes.wake(),
  });
  const dispatch = createDispatch(handlers, (error) =>
    options.logger ? options.logger.error({ err: error }, 'RPC call failed') : undefined,
  );
  const events = createEventHub(sync, { store, dataDir: options.dataDir });
  const sessions = rendererDir ? new UiSessions() : undefined;
  const reloadSync = () => sync.reload(syncSettings(options.settings.read(), options.intervals));
  // The CLI's commands run here while this process holds the data directory (docs/architecture.md#hand-over-to-a-running-instance).
  const controlSecret = newControlSecret();
  const stopping = new AbortController();
  let control: ControlChannel | undefined;
  let api: ApiServer;
  try {
    api = await startApiServer({
      store,
      port: options.port ?? settings.api.port,
      now: options.now,
      logger: options.logger,
      rateLimit: options.rateLimit,
      readThrough: sync.readThrough,
      knowledge,
      ruleDefaults: () =>
        defaultRuleSet({ recoveryNotices: options.settings.read().notifications.recoveryNotices }),
      teamTokens: options.teamServer ? teamTokenAuth(options.teamServer.db, options.now) : undefined,
      host: options.listen?.address,
      extraHosts: { names: options.listen?.hostNames.map((name) => name.toLowerCase()) },
      extend: async (app, port) => {
        if (options.teamServer)
          await registerTeamRoutes(app, { db: options.teamServer.db, now: options.now });
        control = await registerControl(app, {
          secret: controlSecret,
          context: () => ({
            store,
            dataDir: options.dataDir,
            now: options.now,
            settings: async () => options.settings.read(),
            instance: {
              purpose: options.purpose,
              pid: process.pid,
              sync,
              secrets,
              reloadSync,
              knowledge,
              newWebUiLink: sessions ? () => `${api.url}/?token=${sessions.issue()}` : undefined,
              alertsChanged: changedHere,
              stopping: stopping.signal,
              team: { members: team, db: options.teamServer?.db },
              routesChanged: () => routes.wake(),
            },
          }),
          log: (error) => options.logger && options.logger.error({ err: error }, 'CLI command failed'),
        });
        if (!rendererDir || !sessions) return;
        // Loaded only for `serve --ui`: the static-file and cookie plugins add to every cold start.
        const { registerWebUi } = await import('../rpc/webUi');
        await registerWebUi(app, { rendererDir, dispatch, events, sessions, port });
      },
    });
  } catch (error) {
    await demo?.close();
    throw error;
  }
  runtime.apiUrl = api.url;
  const controlInfo = { url: api.url, pid: process.pid, purpose: options.purpose, secret: controlSecret };
  let stopKeepingControl = (): void => undefined;
  let stopTeamLog = async (): Promise<void> => undefined;
  let stopWarming = (): void => undefined;
  const stop = async (): Promise<void> => {
    // The order (docs/decisions.md, "Beside a running instance"). First: a CLI run from now on works on
    // the directory itself once it is released; one that read control.json before is refused (503) and
    // waits for that. Commands in flight run on: a one-off sync hears `stopping` and ends.
    try {
      stopKeepingControl();
      removeControlFile(options.dataDir);
      stopping.abort();
      const commandsDone = control?.close();
      // Nothing more is exchanged with a team server: what waits stays in the outbox for next time.
      await team.stop();
      await stopTeamLog();
      // The sync next (a commit in progress rolls back), so a handed-over `sync --once` ends now too.
      await sync.stop();
      // Every command in flight ends and sends its last line before the API closes its connections.
      await commandsDone;
      stopWarming();
      // After the sync: the last cycle's announcements are decided (and remembered) before the end.
      await alerts.stop();
      // Attempts in flight end within their route's timeout; what waits stays in the outbox.
      await routes.stop();
      await api.close();
      await demo?.close();
    } finally {
      // Last, even when a part failed to stop: the API no longer answers where runtime.json says.
      removeRuntimeFile(options.dataDir);
    }
  };
  try {
    writeControlFile(options.dataDir, controlInfo);
    // Rewritten should it be damaged or removed: a CLI command would wait for it, then give up.
    stopKeepingControl = keepControlFile(options.dataDir, controlInfo);
    // Listening before the first cycle: its failures are the first sync's summary.
    if (options.announce) alerts.onAnnouncement(options.announce);
    // A delivery cut off by the last stop (a kill) is a dead letter, never sent twice.
    const abandoned = await routes.start();
    if (abandoned.length > 0 && options.logger)
      options.logger.warn(
        {},
        `${abandoned.length} route deliveries were cut off when the app last stopped: listed by \`dataset-health rules dead-letters\``,
      );
    alerts.start();
    // Each finished cycle reads what changed into the on-call layer's history and precomputes the
    // Reliability view's default statistics, so a look finds them ready.
    stopWarming = sync.onCycle((event) => {
      void knowledge.warm(event.orgId).catch(reportAlertsError);
      // A team's org mirrored afresh: its operations can be applied against the health it now shows.
      team.nudge(event.orgId);
    });
    sync.start();
    await team.reload();
    // A team server's own mirror knows what the team did: its alerts and reminders follow it too.
    if (options.teamServer)
      stopTeamLog = await applyTeamLog({
        store,
        db: options.teamServer.db,
        now: options.now,
        onApplied: () => void alerts.refresh().catch(reportAlertsError),
        onError: reportAlertsError,
      });
    // Last, once everything runs: scripts that find the API by runtime.json find it answering.
    writeRuntimeFile(options.dataDir, {
      apiUrl: api.url,
      pid: process.pid,
      startedAt: options.now().toISOString(),
    });
  } catch (error) {
    // A disk that refuses an instance file: nothing of this engine may run on once the caller closes
    // the store and releases the lock.
    await stop().catch(() => undefined);
    throw error;
  }
  return {
    api,
    sync,
    demo,
    rpc: { handlers, dispatch, events },
    alerts,
    knowledge,
    team,
    uiUrl: sessions ? `${api.url}/?token=${sessions.firstToken}` : undefined,
    stop,
  };
}
