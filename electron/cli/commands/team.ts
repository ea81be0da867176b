/**
 * `team serve|join|leave|status|tokens`: on call as a team (docs/decisions.md "On call as a team").
 * `team serve` is `serve` plus the team server (its database PostgreSQL with `--database`, else PGlite
 * in the data directory); the others are handed to a running instance when one holds the directory.
 */
import { Command, Option } from 'commander';
import { resolveDataDir } from '../../store/instance/dataDir';
import { runCommand } from '../control';
import { CliError, type CliIo } from '../io';
import { checkOrg, dataDirOption } from '../options';
import { type ServeOptions, withServeOptions } from './serve';

const databaseOption = () =>
  new Option(
    '--database <url>',
    'the team database on a PostgreSQL server (postgres://user:password@host:5432/db); default: PGlite, embedded in the data directory',
  );

export function teamCommand(io: CliIo): Command {
  const team = new Command('team').description(
    'on call as a team: a team server shares acknowledgements, notes and snoozes; desktops join it',
  );

  team.addCommand(
    withServeOptions(
      new Command('serve').description(
        'run a team server: serve plus the team routes, keeping the team’s operations in PostgreSQL (or embedded PGlite)',
      ),
    )
      .addOption(databaseOption())
      .option(
        '--listen <address>',
        'listen on this address instead of 127.0.0.1, to be reached from other machines (0.0.0.0: every interface, loopback too); plain HTTP: put a TLS proxy in front',
      )
      .option(
        '--host-name <name...>',
        'with --listen: the names members reach the server by (the address itself is always served)',
      )
      .action(async (options: ServeOptions & { database?: string; listen?: string; hostName?: string[] }) => {
        const { database, listen, hostName, ...serve } = options;
        if (hostName !== undefined && listen === undefined)
          throw new CliError('--host-name needs --listen: on 127.0.0.1 only loopback names reach the server');
        await (
          await import('./serveRun')
        ).serve(
          {
            ...serve,
            team: {
              database,
              listen: listen === undefined ? undefined : { address: listen, hostNames: hostName ?? [] },
            },
          },
          io,
        );
      }),
  );

  team
    .command('join')
    .description('join a team server: mirror the org from it and share acknowledgements and snoozes')
    .argument('<url>', 'the team server, e.g. http://127.0.0.1:47800')
    .requiredOption('--token <token>', 'your team token (from `team tokens create` on the team server)')
    .addOption(dataDirOption())
    .action(async (url: string, options: { token: string; dataDir?: string }) => {
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'team.join', {
        url,
        token: options.token,
      });
    });

  team
    .command('leave')
    .description('leave the team: the org is this desktop’s alone again, keeping every acknowledgement')
    .option('--org <org>', 'the org whose team to leave (needed when in several teams)')
    .addOption(dataDirOption())
    .action(async (options: { org?: string; dataDir?: string }) => {
      if (options.org !== undefined) checkOrg(options.org);
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'team.leave', { org: options.org });
    });

  team
    .command('status')
    .description('how this desktop stands with its team servers: online, offline, changes waiting')
    .option('--json', 'print JSON')
    .addOption(dataDirOption())
    .action(async (options: { json?: boolean; dataDir?: string }) => {
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'team.status', {
        json: options.json === true,
      });
    });

  const tokens = new Command('tokens').description(
    'create, list and revoke team tokens (on the team server)',
  );
  tokens
    .command('create')
    .description('make a token for one member of one org; prints it alone on stdout (shown only once)')
    .requiredOption('--org <org>', 'the org the member shares')
    .requiredOption('--member <name>', 'the member’s name, shown beside what they do')
    .addOption(
      new Option('--role <role>', 'member: reads and acknowledges; viewer: reads only')
        .choices(['member', 'viewer'])
        .default('member'),
    )
    .addOption(databaseOption())
    .addOption(dataDirOption())
    .action(
      async (options: { org: string; member: string; role: string; database?: string; dataDir?: string }) => {
        checkOrg(options.org);
        await runCommand(io, resolveDataDir(options.dataDir, io.env), 'team.tokens.create', {
          org: options.org,
          member: options.member,
          role: options.role,
          database: options.database,
        });
      },
    );
  tokens
    .command('list')
    .description('list team tokens (never the secrets)')
    .option('--json', 'print JSON')
    .addOption(databaseOption())
    .addOption(dataDirOption())
    .action(async (options: { json?: boolean; database?: string; dataDir?: string }) => {
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'team.tokens.list', {
        json: options.json === true,
        database: options.database,
      });
    });
  tokens
    .command('revoke')
    .description('revoke a team token by its id; it stops working at once')
    .argument('<id>', 'token id, e.g. tok_1a2b3c4d5e6f')
    .addOption(databaseOption())
    .addOption(dataDirOption())
    .action(async (id: string, options: { database?: string; dataDir?: string }) => {
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'team.tokens.revoke', {
        id,
        database: options.database,
      });
    });
  team.addCommand(tokens);
  return team;
}
