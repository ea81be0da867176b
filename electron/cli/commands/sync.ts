/**
 * `sync --once --org ORG --remote URL`: one full sync of a remote org into the local mirror, with a
 * progress line on stderr (DESIGN.md §7). The remote key comes from $DATASET_HEALTH_REMOTE_KEY. On
 * failure the stored data is exactly as before and the exit code is 1.
 */
import { Command } from 'commander';
import { resolveDataDir } from '../../store/dataDir';
import { type Source, SourceError, listSources, normalizeBaseUrl } from '../../store/sources';
import { DEFAULT_SETTINGS } from '../../../shared/settings';
import { SourceRunner } from '../../sync/runner';
import { REMOTE_KEY_ENV, envSecretStore } from '../../sync/secrets';
import { DEFAULT_DELIVERIES_PER_DATASET } from '../../store/datasetWriter';
import { CliError, type CliIo } from '../io';
import { withDataDir } from '../openStore';
import { checkOrg, dataDirOption } from '../options';

interface SyncOptions {
  org: string;
  remote?: string;
  dataDir?: string;
}

/** Progress lines at most this often (a 100k crawl has a hundred pages). */
const PROGRESS_EVERY_MS = 500;

export function syncCommand(io: CliIo): Command {
  return new Command('sync')
    .description(`mirror a remote org once: a full crawl (remote key from $${REMOTE_KEY_ENV})`)
    .requiredOption('--once', 'run one full sync and exit (the continuous loop runs in `serve` and the app)')
    .requiredOption('--org <org>', 'the local org to mirror into')
    .option('--remote <url>', "the remote service's base URL (default: the org's configured source)")
    .addOption(dataDirOption())
    .action((options: SyncOptions) => syncOnce(options, io));
}

async function syncOnce(options: SyncOptions, io: CliIo): Promise<void> {
  const orgId = checkOrg(options.org);
  const secrets = envSecretStore(io.env);
  const dataDir = resolveDataDir(options.dataDir, io.env);
  await withDataDir(dataDir, 'sync', io, async (store) => {
    const configured = listSources(store).find((source) => source.orgId === orgId);
    let baseUrl: string;
    try {
      baseUrl = normalizeBaseUrl(options.remote ?? configured?.baseUrl ?? '');
    } catch (error) {
      if (options.remote === undefined) {
        throw new CliError(`no source is configured for org '${orgId}': pass --remote <url>`);
      }
      if (error instanceof SourceError) throw new CliError(error.message);
      throw error;
    }
    const source: Source = {
      id: configured?.id ?? `cli-${orgId}`,
      orgId,
      name: configured?.name ?? orgId,
      baseUrl,
      enabled: true,
      apiKeySealed: null,
      createdAt: io.now().toISOString(),
    };
    const apiKey = secrets.apiKeyFor(source);
    if (apiKey === null) throw new CliError(`no remote API key: ${secrets.hint}`);
    let lastLine = 0;
    let lastStep = '';
    const runner = new SourceRunner({
      store,
      source,
      apiKey,
      missingKeyHint: secrets.hint,
      now: () => io.now(),
      intervals: { pollMs: DEFAULT_SETTINGS.intervals.pollSeconds * 1000, crawlMs: Infinity },
      deliveriesPerDataset: DEFAULT_DELIVERIES_PER_DATASET,
      onProgress: (line) => {
        // Each new step is printed; repeats of one step (page after page) at most every PROGRESS_EVERY_MS.
        const step = line.split(/\d/)[0] ?? line;
        const at = performance.now();
        if (step === lastStep && at - lastLine < PROGRESS_EVERY_MS) return;
        lastLine = at;
        lastStep = step;
        io.stderr(`${line}\n`);
      },
    });
    io.stderr(`Syncing org ${orgId} from ${baseUrl}…\n`);
    const result = await runner.syncNow();
    await runner.stop();
    if (result.outcome === 'failed') {
      throw new CliError(`sync failed: ${result.error ?? 'unknown error'} (stored data unchanged)`);
    }
    const c = result.counts;
    const seconds = ((Date.parse(result.endedAt) - Date.parse(result.startedAt)) / 1000).toFixed(1);
    io.stderr(
      `Synced ${c.received} datasets into org ${orgId} in ${seconds} s: ${c.written} written, ${c.removed} removed, ` +
        `${c.skipped} skipped (no datasetId), ${c.tasksFetched} tasks records fetched` +
        `${c.tasksFailed ? ` (${c.tasksFailed} failed, read through later)` : ''}.\n`,
    );
  });
}
