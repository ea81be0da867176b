/**
 * `handoff [--since 8h|90m|2d|ISO] [--org ORG] [--format md|json]` (docs/architecture.md#handoff): the shift handoff on
 * stdout. With `serve` or the app running on the data directory, the running instance answers
 * (control/commands/handoff.ts), which also knows what is overdue.
 */
import { Command, Option } from 'commander';
import {
  DEFAULT_HANDOFF_SINCE,
  HANDOFF_FORMATS,
  type HandoffFormat,
  SINCE_FORMS,
} from '../../../shared/handoffOptions';
import { checkOrg } from '../../control/commands/org';
import { resolveDataDir } from '../../store/instance/dataDir';
import { runCommand } from '../control';
import type { CliIo } from '../io';
import { dataDirOption } from '../options';

interface HandoffOptions {
  since: string;
  org?: string;
  format: HandoffFormat;
  dataDir?: string;
}

export function handoffCommand(io: CliIo): Command {
  return new Command('handoff')
    .description(
      'the shift handoff: newly failed, recovered, still failing, missing and overdue, snoozed, at-risk deadlines of the next 8 h, sync outages',
    )
    .option('--since <when>', `where the window starts: ${SINCE_FORMS}`, DEFAULT_HANDOFF_SINCE)
    .option('--org <org>', 'the org (needed when the mirror has several)')
    .addOption(
      new Option('--format <format>', 'md: Markdown for a chat; json: the report')
        .choices(HANDOFF_FORMATS)
        .default('md'),
    )
    .addOption(dataDirOption())
    .action(async (options: HandoffOptions) => {
      // Usage errors (exit 2) before the data directory is opened or the command handed over.
      const { checkSince } = await import('../../control/commands/handoff');
      checkSince(options.since, io.now());
      if (options.org !== undefined) checkOrg(options.org);
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'handoff', {
        since: options.since,
        org: options.org,
        format: options.format,
      });
    });
}
