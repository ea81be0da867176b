/** `sources add|list|remove`: the remote orgs `serve` keeps in sync (DESIGN.md §4). */
import { Command } from 'commander';
import { resolveDataDir } from '../../store/dataDir';
import { SourceError, listSources, removeSource, saveSource } from '../../store/sources';
import { envSecretStore } from '../../sync/secrets';
import { CliError, type CliIo } from '../io';
import { withDataDir } from '../openStore';
import { printTable } from '../table';
import { checkOrg, dataDirOption } from '../options';

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
      const orgId = checkOrg(options.org);
      const secrets = envSecretStore(io.env);
      const source = await withDataDir(
        resolveDataDir(options.dataDir, io.env),
        'sources add',
        io,
        (store) => {
          try {
            return saveSource(
              store,
              {
                id: options.id ?? orgId,
                orgId,
                name: options.name,
                baseUrl: options.remote,
                enabled: !options.disabled,
              },
              io.now(),
            );
          } catch (error) {
            if (error instanceof SourceError) throw new CliError(error.message);
            throw error;
          }
        },
      );
      io.stderr(
        `Source ${source.id}: org ${source.orgId} from ${source.baseUrl}${source.enabled ? '' : ' (disabled)'}. ` +
          `${secrets.apiKeyFor(source) ? 'A remote key is set in the environment.' : `Before \`serve\`, ${secrets.hint}.`}\n`,
      );
    });

  sources
    .command('list')
    .description('list sources (never keys)')
    .option('--json', 'print JSON instead of a table')
    .addOption(dataDirOption())
    .action(async (options: { json?: boolean; dataDir?: string }) => {
      const list = await withDataDir(
        resolveDataDir(options.dataDir, io.env),
        'sources list',
        io,
        listSources,
      );
      const shown = list.map(({ apiKeySealed: _sealed, ...source }) => source);
      if (options.json) {
        io.stdout(`${JSON.stringify(shown, null, 2)}\n`);
        return;
      }
      if (shown.length === 0) {
        io.stderr('No sources yet: add one with `dataset-health sources add --org <org> --remote <url>`.\n');
        return;
      }
      printTable(io, [
        ['ID', 'ORG', 'NAME', 'REMOTE', 'ENABLED'],
        ...shown.map((s) => [s.id, s.orgId, s.name, s.baseUrl, s.enabled ? 'yes' : 'no']),
      ]);
    });

  sources
    .command('remove')
    .description('remove a source (the mirrored data stays)')
    .argument('<id>', 'source id')
    .addOption(dataDirOption())
    .action(async (id: string, options: { dataDir?: string }) => {
      const removed = await withDataDir(
        resolveDataDir(options.dataDir, io.env),
        'sources remove',
        io,
        (store) => removeSource(store, id),
      );
      if (!removed) throw new CliError(`no source '${id}' (see \`dataset-health sources list\`)`);
      io.stderr(`Removed source ${id}.\n`);
    });

  return sources;
}
