/**
 * The engine's side of the RPC contract (shared/rpc.ts): one handler per call, for both transports.
 * Every store use waits for a sync commit in progress, so a window never reads half a commit: a write
 * through `whenIdle` (which also waits for an export in progress), a read through `whenReadable` (which
 * does not, docs/decisions.md "Export in slices").
 */
import { dirname, join } from 'node:path';
import { DEFAULT_SETTINGS, type Settings } from '../../shared/settings';
import type { DatasetRecord, TasksRecord } from '../../shared/schemas';
import { type RpcHandlers, RpcError } from '../../shared/rpc';
import { UnknownOrgError, getOrg, listOrgs } from '../store/tables/orgs';
import { KeyNameError, createApiKey, listApiKeys, revokeApiKey } from '../store/tables/apiKeys';
import { EXPORTS_FOLDER, ExportFileError, writeExportFile } from '../store/snapshot/exportFile';
import type { Store } from '../store/database';
import type { SettingsFile } from '../store/tables/settings';
import type { DesktopStatus } from '../../shared/views';
import { listSnoozes } from '../store/tables/snoozes';
import { snoozeDataset, unsnoozeDataset } from '../knowledge/snooze';
import { deadlineConfigs, getDataset, resolveDatasetId } from '../query/dataset';
import { exportSnapshotInSlices } from '../query/exportSnapshot';
import { listRows, statusCounts } from '../query/rows';
import { parseSelection } from '../query/selection';
import { readDeliveryTasks } from '../query/tasks';
import type { SourcesSync } from '../sync/sourcesSync';
import type { SecretKeeper } from '../sync/secrets';
import { databaseStatus } from './database';
import { incidentOfDataset, listIncidents } from '../query/incidents';
import { listAcknowledgements } from '../store/tables/acknowledgements';
import { datasetTimeline } from '../store/tables/timeline';
import { TIMELINE_LIMIT } from '../../shared/timeline';
import {
  acknowledgeCause,
  acknowledgeDataset,
  unacknowledgeCause,
  unacknowledgeDataset,
} from '../knowledge/acknowledge';
import { acknowledgerName, osUserName } from '../knowledge/identity';
import { OnCallKnowledge } from '../knowledge/service';
import { parseHandoffSince } from '../../shared/handoffSince';
import { type SourceDeps, sourceHandlers } from './sources';
import { type TeamDeps, teamHandlers } from './team';
import { type RulesDeps, rulesHandlers } from './rules';

/** Events a dataset view shows: every one the store retains. */
const ALL_RETAINED = 1000;

export interface RpcDeps extends SourceDeps, TeamDeps, RulesDeps {
  store: Store;
  sync: SourcesSync;
  secrets: SecretKeeper;
  now: () => Date;
  runtime: { apiUrl: string; dataDir: string; version: string };
  /** Settings the command line gave, which win over the stored ones until the next start. */
  overridden: string[];
  /** Applies stored settings and sources to the running sync (restarts its runners). */
  reloadSync(): Promise<void>;
  settings: SettingsFile;
  /** The on-call layer's answers (docs/architecture.md#the-on-call-layer); default: one of its own over the store and the sync's states. */
  knowledge?: OnCallKnowledge;
  /** Snoozes or notification settings changed: the alerts redraw the tray. */
  alertsChanged?(): void;
  /** The desktop app's habits as its system took them (the app only). */
  desktop?(): DesktopStatus;
}

export function createRpcHandlers(deps: RpcDeps): RpcHandlers {
  const { store, now } = deps;
  const idle = <T>(fn: () => T): Promise<T> => store.whenIdle(fn);
  /** For reads only: answered while an export holds the writers (docs/decisions.md "Export in slices"). */
  const read = <T>(fn: () => T): Promise<T> => store.whenReadable(fn);
  const knowledge = deps.knowledge ?? new OnCallKnowledge({ store, now, sources: () => deps.sync.states() });
  const knownOrg = async <T>(orgId: string, answer: () => Promise<T>): Promise<T> => {
    if (!(await read(() => getOrg(store, orgId))))
      throw new RpcError('not-found', `no org '${orgId}' in this mirror`);
    return answer();
  };
  const settingsView = () => ({
    settings: deps.settings.read(),
    defaults: DEFAULT_SETTINGS,
    runtime: deps.runtime,
    keys: { canStore: deps.secrets.seal !== undefined, hint: deps.secrets.hint },
    overridden: deps.overridden,
    osUserName: osUserName(),
    ...(deps.desktop ? { desktop: deps.desktop() } : {}),
  });

  return {
    'database.status': async () => databaseStatus(store, deps.runtime.dataDir),
    'orgs.list': () =>
      read(() =>
        listOrgs(store).map(({ id, name, datasets, lastSyncedAt }) => ({ id, name, datasets, lastSyncedAt })),
      ),
    // Parsed once, here; a bad filter or sort is the query layer's InvalidArgument (dispatch translates it).
    'datasets.rows': async (request) => {
      const page = { ...parseSelection(request), pageSize: request.pageSize, pageToken: request.pageToken };
      const [{ rows, configs }, overdue] = await Promise.all([
        read(() => {
          const listed = listRows(store, page);
          const ids = listed.rows.map((row) => row.datasetId);
          return { rows: listed, configs: deadlineConfigs(store, request.orgId, ids) };
        }),
        knowledge.overdue(request.orgId),
      ]);
      // The deadline clock's mark beside the store's row (never its status): query/ knows no deadlines.
      const marks = new Map(overdue.datasets.map((entry) => [entry.datasetId, entry]));
      return {
        nextPageToken: rows.nextPageToken,
        rows: rows.rows.map((row) => {
          const mark = marks.get(row.datasetId);
          const config = configs.get(row.datasetId);
          // "Next expected" is the deadline clock's (what Upcoming and overdue use), not the remote's
          // value as last synced (stale once its time passed); the remote's when the schedule is unreadable.
          const next = config === undefined ? null : knowledge.nextDeadlineOf(config);
          return {
            ...row,
            nextExpectedDeliveryTimestamp: next ?? row.nextExpectedDeliveryTimestamp,
            overdueDeadlines: mark?.deadlines ?? 0,
            overdueSince: mark?.since ?? null,
          };
        }),
      };
    },
    'datasets.counts': async (request) => {
      const selection = parseSelection(request);
      return read(() => statusCounts(store, selection));
    },
    'dataset.get': (request) =>
      read(() => {
        const json = getDataset(store, {
          orgId: request.orgId,
          datasetId: request.datasetId,
          latestDeliveriesCount: ALL_RETAINED,
          includeRunDetails: true,
        });
        if (json === null) return null;
        const record = JSON.parse(json) as DatasetRecord;
        // The window's "Next expected" is the deadline clock's, as in the datasets table (the local v2
        // API keeps the remote's value as synced).
        const next = knowledge.nextDeadlineOf(record.currentProcessingDeadlineConfig);
        return next === null ? record : { ...record, nextExpectedDeliveryTimestamp: next };
      }),
    // Tasks never synced are asked of the org's remote, as the local API does.
    'delivery.tasks': (request) =>
      readDeliveryTasks(store, request, deps.sync.readThrough, (result) =>
        result.found
          ? { tasks: JSON.parse(result.json) as TasksRecord, missing: null }
          : { tasks: null, missing: result.reason },
      ),
    'sync.states': async () => deps.sync.states(),
    'sync.now': async ({ sourceId }) => {
      const known = deps.sync.states().filter((state) => sourceId === null || state.sourceId === sourceId);
      if (sourceId !== null && known.length === 0)
        throw new RpcError('not-found', `no running source '${sourceId}'`);
      // The cycle reports through source.state and sync.cycle events; the call returns at once.
      void deps.sync.syncNow(sourceId ?? undefined).catch(() => undefined);
      return { started: known.length };
    },
    'settings.get': () => idle(settingsView),
    'settings.save': async (settings) => {
      const before = deps.settings.read();
      deps.settings.write(settings);
      deps.alertsChanged?.();
      // Only what the sync uses restarts it (a restart begins with a full crawl of every source).
      const syncUses = (s: Settings) => JSON.stringify([s.intervals, s.data, s.triage.incidentGapHours]);
      if (syncUses(before) !== syncUses(settings)) await deps.reloadSync();
      return idle(settingsView);
    },
    ...sourceHandlers(deps),
    ...teamHandlers(deps),
    ...rulesHandlers(deps),
    'keys.list': () => read(() => listApiKeys(store)),
    'keys.create': ({ orgId, name }) =>
      idle(() => {
        try {
          // The window offers only existing orgs: an unknown one is a stale list or a hand-made call.
          const { key, ...info } = createApiKey(store, orgId, name, now(), { newOrg: false });
          return { key, info };
        } catch (error) {
          if (error instanceof KeyNameError) throw new RpcError('invalid-argument', error.message);
          if (error instanceof UnknownOrgError) throw new RpcError('not-found', error.message);
          throw error;
        }
      }),
    'keys.revoke': ({ id }) => idle(() => ({ revoked: revokeApiKey(store, id, now()) })),
    'snoozes.list': ({ orgId }) => read(() => listSnoozes(store, orgId, now())),
    'snoozes.set': async ({ orgId, datasetId, kind }) => {
      const snooze = await idle(() => snoozeDataset(store, orgId, datasetId, kind, now()));
      deps.alertsChanged?.();
      return snooze;
    },
    'snoozes.clear': async ({ orgId, datasetId }) => {
      const cleared = await idle(() => unsnoozeDataset(store, orgId, datasetId, now()));
      deps.alertsChanged?.();
      return { cleared };
    },
    'incidents.list': ({ orgId }) => read(() => listIncidents(store, orgId)),
    'acks.set': async ({ orgId, datasetId, causeId, note }) => {
      const who = { by: acknowledgerName(deps.settings.read()), now: now() };
      const acknowledged = await idle(() => {
        if ((datasetId === null) === (causeId === null))
          throw new RpcError('invalid-argument', 'acknowledge either a dataset or an incident');
        return datasetId !== null
          ? [acknowledgeDataset(store, orgId, datasetId, note, who)]
          : acknowledgeCause(store, orgId, causeId!, note, who);
      });
      deps.alertsChanged?.();
      return { acknowledged };
    },
    'acks.clear': async ({ orgId, datasetId, causeId }) => {
      const who = { by: acknowledgerName(deps.settings.read()), now: now() };
      const cleared = await idle(() => {
        if ((datasetId === null) === (causeId === null))
          throw new RpcError(
            'invalid-argument',
            'withdraw the acknowledgement of either a dataset or an incident',
          );
        return datasetId !== null
          ? Number(unacknowledgeDataset(store, orgId, datasetId, who))
          : unacknowledgeCause(store, orgId, causeId!, who);
      });
      deps.alertsChanged?.();
      return { cleared };
    },
    'acks.list': ({ orgId, includeEnded }) => read(() => listAcknowledgements(store, orgId, includeEnded)),
    'dataset.triage': ({ orgId, datasetId }) =>
      read(() => {
        const found = incidentOfDataset(store, orgId, datasetId);
        return found
          ? {
              incidentId: found.incidentId,
              causeId: found.causeId,
              causeTitle: found.title,
              message: found.dataset.message,
              deliveryId: found.dataset.deliveryId,
              acknowledgement: found.dataset.acknowledgement,
            }
          : null;
      }),
    // As /local/v1 answers it: an unknown dataset is not found (not the org's outages alone).
    'dataset.timeline': ({ orgId, datasetId }) =>
      read(() => {
        const id = resolveDatasetId(store, orgId, datasetId);
        if (id === null) throw new RpcError('not-found', `no dataset '${datasetId}' in org '${orgId}'`);
        return datasetTimeline(store, orgId, id, TIMELINE_LIMIT);
      }),
    // The on-call layer reads its history in memory, re-reading only what a commit changed.
    'upcoming.list': ({ orgId, hours }) => knownOrg(orgId, () => knowledge.upcoming(orgId, hours)),
    'overdue.get': ({ orgId }) => knownOrg(orgId, () => knowledge.overdue(orgId)),
    'dataset.deadlines': ({ orgId, datasetId }) => knowledge.datasetDeadlines(orgId, datasetId),
    'handoff.get': ({ orgId, since, rows }) =>
      knownOrg(orgId, () => {
        let start: Date;
        try {
          start = parseHandoffSince(since, now());
        } catch (error) {
          throw new RpcError('invalid-argument', `since: ${(error as Error).message}`);
        }
        return knowledge.handoff(orgId, start, rows);
      }),
    'stats.get': ({ orgId, groupBy, days, key, weeks }) =>
      knownOrg(orgId, () => knowledge.stats(orgId, groupBy, days, key ?? null, { weeks: weeks ?? true })),
    'data.export': async ({ orgId }) => {
      const stamp = now().toISOString().replace(/[:.]/g, '-');
      const path = join(deps.runtime.dataDir, EXPORTS_FOLDER, `${orgId}-${stamp}.json`);
      const missing = () => new RpcError('not-found', `no org '${orgId}' in this mirror`);
      if (!(await read(() => getOrg(store, orgId)))) throw missing();
      // The CLI's export check: `exports/` made when missing, refused when it is a link back into
      // the data directory (docs/decisions.md "The data directory is the engine's alone"). In slices,
      // so the window and the API are answered while a large org is written (docs/decisions.md
      // "Export in slices").
      try {
        const counts = await writeExportFile(deps.runtime.dataDir, path, async (append) => {
          const exported = await exportSnapshotInSlices(store, orgId, {
            write: (text) => append(Buffer.from(text)),
          });
          if (exported === null) throw missing();
          return exported;
        });
        return { path, datasets: counts.datasets };
      } catch (error) {
        // The window names no file: say what to do about its folder (the CLI's words are about a path).
        if (error instanceof ExportFileError)
          throw new RpcError(
            'unavailable',
            `the export folder ${dirname(path)} cannot be used (${error.message}); make it a plain folder, or export with \`dataset-health export --org ${orgId} FILE\` to a file of your choice`,
          );
        throw error;
      }
    },
  };
}
