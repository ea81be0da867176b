/**
 * `sync --once --org ORG [--remote URL]`: one full sync of a remote org into the local mirror, with
 * progress lines on stderr (docs/architecture.md#the-cli). The remote key comes from $DATASET_HEALTH_REMOTE_KEY. With
 * `serve` or the app running on the data directory, it is their "sync now" (control/commands/sync.ts).
 */
import { Command } from 'commander';
import { resolveDataDir } from '../../store/instance/dataDir';
import { REMOTE_KEY_ENV } from '../../sync/secrets';
import { runCommand } from '../control';
import type { CliIo } from '../io';
import { checkOrg, dataDirOption, remoteKeyEnv } from '../options';

interface SyncOptions {
  org: string;
  remote?: string;
  dataDir?: string;
}

export function syncCommand(io: CliIo): Command {
  return new Command('sync')
    .description(`mirror a remote org once: a full crawl (remote key from $${REMOTE_KEY_ENV})`)
    .requiredOption('--once', 'run one full sync and exit (the continuous loop runs in `serve` and the app)')
    .requiredOption('--org <org>', 'the local org to mirror into')
    .option('--remote <url>', "the remote service's base URL (default: the org's configured source)")
    .addOption(dataDirOption())
    .action(async (options: SyncOptions) => {
      checkOrg(options.org);
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'sync.once', {
        org: options.org,
        remote: options.remote,
        keyEnv: remoteKeyEnv(io.env),
      });
    });
}
