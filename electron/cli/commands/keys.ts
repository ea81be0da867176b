/** `keys create|list|revoke`: local API keys (DESIGN.md §2). `create` prints the key alone on stdout. */
import { Command } from 'commander';
import { createApiKey, listApiKeys, revokeApiKey } from '../../store/apiKeys';
import { resolveDataDir } from '../../store/dataDir';
import { CliError, type CliIo } from '../io';
import { withDataDir } from '../openStore';
import { printTable } from '../table';
import { checkOrg, dataDirOption } from '../options';

export function keysCommand(io: CliIo): Command {
  const keys = new Command('keys').description('create, list and revoke keys for the local API');

  keys
    .command('create')
    .description('create a key for one org; prints the key alone on stdout (it is shown only once)')
    .requiredOption('--org <org>', 'the org whose data the key may read')
    .option('--name <name>', 'a name to recognise the key by', 'cli')
    .addOption(dataDirOption())
    .action(async (options: { org: string; name: string; dataDir?: string }) => {
      checkOrg(options.org);
      const created = await withDataDir(resolveDataDir(options.dataDir, io.env), 'keys create', io, (store) =>
        createApiKey(store, options.org, options.name, io.now()),
      );
      io.stdout(`${created.key}\n`);
      io.stderr(
        `Created key ${created.id} ('${created.name}') for org ${created.orgId}. Store it now: it is not shown again.\n`,
      );
    });

  keys
    .command('list')
    .description('list keys (never the secrets): id, org, name, created, last used, revoked')
    .option('--org <org>', 'only the keys of this org')
    .option('--json', 'print JSON instead of a table')
    .addOption(dataDirOption())
    .action(async (options: { org?: string; json?: boolean; dataDir?: string }) => {
      const list = await withDataDir(resolveDataDir(options.dataDir, io.env), 'keys list', io, (store) =>
        listApiKeys(store, options.org),
      );
      if (options.json) {
        io.stdout(`${JSON.stringify(list, null, 2)}\n`);
        return;
      }
      if (list.length === 0) {
        io.stderr('No keys yet: create one with `dataset-health keys create --org <org>`.\n');
        return;
      }
      printTable(io, [
        ['ID', 'ORG', 'NAME', 'CREATED', 'LAST USED', 'REVOKED'],
        ...list.map((k) => [k.id, k.orgId, k.name, k.createdAt, k.lastUsedAt ?? '-', k.revokedAt ?? '-']),
      ]);
    });

  keys
    .command('revoke')
    .description('revoke a key by its id (see `keys list`); it stops working at once')
    .argument('<id>', 'key id, e.g. key_1a2b3c4d5e6f')
    .addOption(dataDirOption())
    .action(async (id: string, options: { dataDir?: string }) => {
      const revoked = await withDataDir(resolveDataDir(options.dataDir, io.env), 'keys revoke', io, (store) =>
        revokeApiKey(store, id, io.now()),
      );
      if (!revoked) throw new CliError(`no active key with id '${id}' (see \`dataset-health keys list\`)`);
      io.stderr(`Revoked key ${id}.\n`);
    });

  return keys;
}
