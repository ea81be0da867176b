/**
 * `sync --once --org ORG [--remote URL]`: one full sync of a remote org into the mirror, with progress
 * lines on stderr (docs/architecture.md#the-cli). Alone, the CLI runs it with the remote key from its environment. In a
 * running instance that already syncs the org, it is that source's "sync now": the command waits for the
 * crawl and prints its result; for an org the instance does not sync, the instance runs the same one-off
 * sync the CLI would. On failure the stored data is exactly as before and the exit code is 1.
 */
import Type from 'typebox';
import { DEFAULT_SETTINGS, incidentGapMs } from '../../../shared/settings';
import type { CycleEvent } from '../../../shared/sync';
import { DEFAULT_DELIVERIES_PER_DATASET } from '../../store/tables/datasetWriter';
import { type Source, SourceError, listSources, normalizeBaseUrl } from '../../store/tables/sources';
import { SourceRunner } from '../../sync/runner';
import { envSecretKeeper } from '../../sync/secrets';
import { teamLinkOf } from '../../store/tables/teamLinks';
import { type CommandContext, CommandError, type CommandOutput, command } from '../command';
import { checkOrg } from './org';

/** Progress lines at most this often (a 100k crawl has a hundred pages). */
const PROGRESS_EVERY_MS = 500;

const SyncArgs = Type.Object(
  {
    org: Type.String(),
    remote: Type.Optional(Type.String()),
    /** The CLI's `DATASET_HEALTH_REMOTE_KEY*` variables: the remote key of a one-off sync. */
    keyEnv: Type.Record(Type.String(), Type.String()),
  },
  { additionalProperties: false },
);

export const syncOnce = command({
  args: SyncArgs,
  async run(ctx, args, out) {
    const orgId = checkOrg(args.org);
    const progress = progressPrinter(out);
    const running = ctx.instance?.sync.states().find((state) => state.orgId === orgId);
    const configured = await ctx.store.whenIdle(() =>
      listSources(ctx.store).find((source) => source.orgId === orgId),
    );
    // The instance's own runner for the org, when it can sync (it has a key; else it is stopped and the
    // CLI's key does what it would alone).
    const runner = running && ctx.instance?.sync.runner(running.sourceId);
    let result: CycleEvent;
    if (ctx.instance && running && runner?.client) {
      // A second runner beside it would fight over the datasets.
      const runningUrl = configured?.id === running.sourceId ? configured.baseUrl : undefined;
      const from = runningUrl ?? `its source '${running.sourceId}'`;
      if (args.remote !== undefined && remoteUrl(orgId, args.remote, undefined) !== runningUrl)
        throw new CommandError(
          `org '${orgId}' is synced from ${from} by the running ${ctx.instance.purpose} (process ${ctx.instance.pid}); ` +
            'change its source (`dataset-health sources add`) instead of syncing it from another remote',
        );
      out.stderr(`Syncing org ${orgId} from ${from} (the running ${ctx.instance.purpose})…\n`);
      const stop = ctx.instance.sync.onState((state) => {
        if (state.sourceId === running.sourceId && state.activity) progress(state.activity);
      });
      try {
        result = await runner.syncNow();
      } finally {
        stop();
      }
    } else {
      const baseUrl = remoteUrl(orgId, args.remote, configured?.baseUrl);
      result = await oneOffSync(ctx, orgId, baseUrl, configured, args.keyEnv, out, progress);
    }
    if (result.outcome === 'failed') {
      if (ctx.instance?.stopping.aborted)
        throw new CommandError(
          `sync stopped: the running ${ctx.instance.purpose} (process ${ctx.instance.pid}) is shutting down (stored data unchanged); run it again once it has stopped`,
        );
      throw new CommandError(`sync failed: ${result.error ?? 'unknown error'} (stored data unchanged)`);
    }
    const c = result.counts;
    const seconds = ((Date.parse(result.endedAt) - Date.parse(result.startedAt)) / 1000).toFixed(1);
    out.stderr(
      `Synced ${c.received} datasets into org ${orgId} in ${seconds} s: ${c.written} written, ${c.removed} removed, ` +
        `${c.skipped} skipped (no datasetId), ${c.tasksFetched} tasks records fetched` +
        `${c.tasksFailed ? ` (${c.tasksFailed} failed, read through later)` : ''}.\n`,
    );
  },
  ifOutcomeUnknown: () => 'a sync is stored whole or not at all: running it again is safe',
});

function remoteUrl(orgId: string, given: string | undefined, configured: string | undefined): string {
  try {
    return normalizeBaseUrl(given ?? configured ?? '');
  } catch (error) {
    if (given === undefined && configured === undefined)
      throw new CommandError(`no source is configured for org '${orgId}': pass --remote <url>`);
    if (error instanceof SourceError) throw new CommandError(error.message);
    throw error;
  }
}

async function oneOffSync(
  ctx: CommandContext,
  orgId: string,
  baseUrl: string,
  configured: Source | undefined,
  keyEnv: Record<string, string>,
  out: CommandOutput,
  progress: (line: string) => void,
): Promise<CycleEvent> {
  const secrets = envSecretKeeper(keyEnv);
  const source: Source = {
    id: configured?.id ?? `cli-${orgId}`,
    orgId,
    name: configured?.name ?? orgId,
    baseUrl,
    enabled: true,
    apiKeySealed: null,
    createdAt: ctx.now().toISOString(),
  };
  // An org shared with a team is mirrored from its team server, with the member's team token (never
  // the remote service's key, which the team server has no business seeing).
  const link = teamLinkOf(ctx.store, orgId);
  if (link !== null && baseUrl !== link.url)
    throw new CommandError(
      `org '${orgId}' is mirrored from its team server ${link.url}: leave the team (\`dataset-health team leave\`) to sync it from ${baseUrl}`,
    );
  if (link !== null && link.tokenSealed)
    throw new CommandError(
      `org '${orgId}' is shared with a team through the app, which sealed its token: sync it with the app open (this command then asks the app)`,
    );
  const apiKey = link !== null ? link.token : secrets.apiKeyFor(source);
  if (apiKey === null) throw new CommandError(`no remote API key: ${secrets.hint}`);
  const runner = new SourceRunner({
    store: ctx.store,
    source,
    apiKey,
    missingKeyHint: secrets.hint,
    now: ctx.now,
    intervals: { pollMs: DEFAULT_SETTINGS.intervals.pollSeconds * 1000, crawlMs: Infinity },
    deliveriesPerDataset: DEFAULT_DELIVERIES_PER_DATASET,
    incidentGapMs: incidentGapMs(await ctx.settings()),
    onProgress: progress,
  });
  out.stderr(`Syncing org ${orgId} from ${baseUrl}…\n`);
  // The instance's own runners stop with its sync; this one stops when the instance does (it waits for
  // the command, and a remote that does not answer would hold it for minutes of retries).
  const stop = () => void runner.stop();
  ctx.instance?.stopping.addEventListener('abort', stop, { once: true });
  try {
    if (ctx.instance?.stopping.aborted) stop();
    return await runner.syncNow();
  } finally {
    ctx.instance?.stopping.removeEventListener('abort', stop);
    await runner.stop();
  }
}

/** Each new step is printed; repeats of one step (page after page) at most every PROGRESS_EVERY_MS. */
function progressPrinter(out: CommandOutput): (line: string) => void {
  let lastLine = 0;
  let lastStep = '';
  return (line) => {
    const step = line.split(/\d/)[0] ?? line;
    const at = performance.now();
    if (step === lastStep && at - lastLine < PROGRESS_EVERY_MS) return;
    lastLine = at;
    lastStep = step;
    out.stderr(`${line}\n`);
  };
}
