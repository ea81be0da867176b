/**
 * `keys create|list|revoke`: local API keys (docs/api.md#keys). `create` prints the key alone on stdout.
 * With `serve` or the app running on the data directory, the running instance does the work (control/).
 */
import { Command } from 'commander';
import { resolveDataDir } from '../../store/instance/dataDir';
import { printKeys } from '../../control/commands/keyList';
import { runCommand } from '../control';
import type { CliIo } from '../io';
import { checkOrg, dataDirOption } from '../options';

export function keysCommand(io: CliIo): Command {
  const keys = new Command('keys').description('create, list and revoke keys for the local API');

  keys
    .command('create')
    .description('create a key for one org; prints the key alone on stdout (it is shown only once)')
    .requiredOption('--org <org>', 'the org whose data the key may read')
    .option('--name <name>', 'a name to recognise the key by (no control characters, at most 128)', 'cli')
    .option('--new-org', 'create the org when it is not in the data directory yet (else refused)')
    .addOption(dataDirOption())
    .action(async (options: { org: string; name: string; newOrg?: boolean; dataDir?: string }) => {
      checkOrg(options.org);
      const { checkName } = await import('../../control/commands/keys');
      checkName(options.name);
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'keys.create', {
        org: options.org,
        name: options.name,
        newOrg: options.newOrg === true,
      });
    });

  keys
    .command('list')
    .description('list keys (never the secrets): id, org, name, created, last used, revoked')
    .option('--org <org>', 'only the keys of this org')
    .option('--json', 'print JSON instead of a table')
    .addOption(dataDirOption())
    .action(async (options: { org?: string; json?: boolean; dataDir?: string }) => {
      const json = options.json === true;
      await runCommand(
        io,
        resolveDataDir(options.dataDir, io.env),
        'keys.list',
        { org: options.org, json },
        // A new data directory has no keys: said without making a database there.
        { emptyStore: (out) => printKeys(out, [], json) },
      );
    });

  keys
    .command('revoke')
    .description('revoke a key by its id (see `keys list`); it stops working at once')
    .argument('<id>', 'key id, e.g. key_1a2b3c4d5e6f')
    .addOption(dataDirOption())
    .action(async (id: string, options: { dataDir?: string }) => {
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'keys.revoke', { id });
    });

  return keys;
}
