/**
 * `sources add|list|remove`: the remote orgs `serve` and the app keep in sync (docs/architecture.md#sync). With one
 * of them running on the data directory, it does the work and syncs the changed sources at once.
 */
import { Command } from 'commander';
import { resolveDataDir } from '../../store/instance/dataDir';
import { runCommand } from '../control';
import type { CliIo } from '../io';
import { checkOrg, dataDirOption, remoteKeyEnv } from '../options';

interface AddOptions {
  id?: string;
  org: string;
  remote: string;
  name?: string;
  disabled?: boolean;
  dataDir?: string;
}

export function sourcesCommand(io: CliIo): Command {
  const sources = new Command('sources').description('the remote orgs that `serve` keeps in sync');

  sources
    .command('add')
    .description('add (or change) a source; its key comes from the environment when serve runs')
    .requiredOption('--org <org>', 'the local org to mirror into (one source per org)')
    .requiredOption('--remote <url>', "the remote service's base URL")
    .option('--id <id>', 'source id (default: the org)')
    .option('--name <name>', 'a name shown in the app')
    .option('--disabled', 'keep the source but do not sync it')
    .addOption(dataDirOption())
    .action(async (options: AddOptions) => {
      checkOrg(options.org);
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'sources.add', {
        id: options.id,
        org: options.org,
        remote: options.remote,
        name: options.name,
        disabled: options.disabled === true,
        keyVariables: Object.keys(remoteKeyEnv(io.env)),
      });
    });

  sources
    .command('list')
    .description('list sources (never keys)')
    .option('--json', 'print JSON instead of a table')
    .addOption(dataDirOption())
    .action(async (options: { json?: boolean; dataDir?: string }) => {
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'sources.list', {
        json: options.json === true,
      });
    });

  sources
    .command('remove')
    .description('remove a source (the mirrored data stays)')
    .argument('<id>', 'source id')
    .addOption(dataDirOption())
    .action(async (id: string, options: { dataDir?: string }) => {
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'sources.remove', { id });
    });

  return sources;
}
