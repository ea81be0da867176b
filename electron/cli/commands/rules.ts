/**
 * `rules export|import|reset|test` (docs/decisions.md "Notification rules"): an org's notification rules as
 * a JSON file; and `rules dead-letters|send-again`, the deliveries its routes gave up
 * (control/commands/deadLetters.ts). The file is read here, at most RULES_FILE_BYTES, and checked whole by the command
 * (control/commands/rules.ts), which the running instance runs when `serve` or the app holds the data
 * directory.
 */
import { readFile, stat } from 'node:fs/promises';
import { Command } from 'commander';
import { REPLAY_DAYS } from '../../../shared/rulesView';
import { checkOrg } from '../../control/commands/org';
import { resolveDataDir } from '../../store/instance/dataDir';
import { printable } from '../../store/tables/orgs';
import { runCommand } from '../control';
import { CliError, type CliIo } from '../io';
import { dataDirOption } from '../options';

/** How many days `rules test` replays: what the rules log keeps (store/tables/ruleLog.ts). */

/** A rules file is small (200 rules are ~100 KiB): anything larger is not one. */
export const RULES_FILE_BYTES = 1024 * 1024;

/** The file's JSON, or an error that says why it cannot be read as such. */
async function readRulesFile(path: string): Promise<unknown> {
  const info = await stat(path);
  if (!info.isFile()) throw new CliError(`${printable(path)} is not a file`);
  if (info.size > RULES_FILE_BYTES)
    throw new CliError(
      `${printable(path)} is ${info.size} bytes: a rules file is at most ${RULES_FILE_BYTES}`,
    );
  const text = await readFile(path, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`${printable(path)} is not JSON: ${(error as Error).message}`);
  }
}

export function rulesCommand(io: CliIo): Command {
  const rules = new Command('rules').description(
    'notification rules: who is told about what, and where (export, import, reset, test, dead-letters, send-again)',
  );

  rules
    .command('export')
    .description("print an org's rules as a JSON rules file (its default rules when it saved none)")
    .option('--org <org>', 'the org (needed when the mirror has several)')
    .addOption(dataDirOption())
    .action(async (options: { org?: string; dataDir?: string }) => {
      if (options.org !== undefined) checkOrg(options.org);
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'rules.export', { org: options.org });
    });

  rules
    .command('import')
    .description("save a rules file as an org's rules; a file with any problem changes nothing")
    .argument('<file>', 'a rules file, as `rules export` writes it')
    .option('--org <org>', "the org to save them for (default: the file's org)")
    .addOption(dataDirOption())
    .action(async (path: string, options: { org?: string; dataDir?: string }) => {
      if (options.org !== undefined) checkOrg(options.org);
      const file = await readRulesFile(path);
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'rules.import', {
        org: options.org,
        file,
        source: path,
      });
    });

  rules
    .command('reset')
    .description('put an org back on the default rules')
    .option('--org <org>', 'the org (needed when the mirror has several)')
    .addOption(dataDirOption())
    .action(async (options: { org?: string; dataDir?: string }) => {
      if (options.org !== undefined) checkOrg(options.org);
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'rules.reset', { org: options.org });
    });

  rules
    .command('test')
    .description(
      'replay a rule set over the stored history: what it would have sent, per day and per rule, beside what was sent',
    )
    .option('--org <org>', 'the org (needed when the mirror has several)')
    .option(
      '--days <n>',
      `the last N days (${REPLAY_DAYS.min}–${REPLAY_DAYS.max})`,
      String(REPLAY_DAYS.default),
    )
    .option('--file <file>', 'a rules file to try before importing it (default: the rules in force)')
    .option('--format <format>', 'md or json', 'md')
    .addOption(dataDirOption())
    .action(
      async (options: { org?: string; days: string; file?: string; format: string; dataDir?: string }) => {
        if (options.org !== undefined) checkOrg(options.org);
        const days = Number(options.days);
        if (!/^[0-9]+$/.test(options.days) || days < REPLAY_DAYS.min || days > REPLAY_DAYS.max)
          throw new CliError(
            `--days ${printable(options.days)}: a whole number of days from ${REPLAY_DAYS.min} to ${REPLAY_DAYS.max}`,
          );
        if (options.format !== 'md' && options.format !== 'json')
          throw new CliError(`--format ${printable(options.format)}: md or json`);
        const file = options.file === undefined ? undefined : await readRulesFile(options.file);
        await runCommand(io, resolveDataDir(options.dataDir, io.env), 'rules.test', {
          org: options.org,
          days,
          ...(file === undefined ? {} : { file, source: options.file }),
          format: options.format,
          // Days and times of day are the user's: this process's zone (TZ), also when handed to the app.
          timeZone: io.env.TZ || Intl.DateTimeFormat().resolvedOptions().timeZone,
        });
      },
    );

  rules
    .command('dead-letters')
    .description('list the deliveries to hooks and webhooks given up, with their last error')
    .option('--org <org>', 'only those of this org')
    .option('--json', 'print JSON instead of a table')
    .addOption(dataDirOption())
    .action(async (options: { org?: string; json?: boolean; dataDir?: string }) => {
      if (options.org !== undefined) checkOrg(options.org);
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'rules.deadLetters', {
        org: options.org,
        json: options.json === true,
      });
    });

  rules
    .command('send-again')
    .description('put a dead letter back on its way (it may arrive twice if its outcome was unknown)')
    .argument('<id>', 'its id, as `rules dead-letters` lists it')
    .addOption(dataDirOption())
    .action(async (id: string, options: { dataDir?: string }) => {
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'rules.sendAgain', { id });
    });

  return rules;
}
