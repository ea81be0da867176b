/**
 * `ack` / `unack` (docs/architecture.md#acknowledgements): acknowledge a dataset's current failure or every current failure of a
 * cause, with a note and who did it; withdraw it. With `serve` or the app running on the data directory,
 * the running instance does the work (control/commands/ack.ts) and its tray shows it at once.
 */
import { Command } from 'commander';
import { MAX_ACK_NAME_LENGTH, MAX_NOTE_LENGTH } from '../../../shared/ackLimits';
import { resolveDataDir } from '../../store/instance/dataDir';
import { runCommand } from '../control';
import type { CliIo } from '../io';
import { dataDirOption } from '../options';

interface AckOptions {
  cause?: string;
  org?: string;
  note?: string;
  by?: string;
  json?: boolean;
  dataDir?: string;
}

const CAUSE_HELP =
  'a cause: STAGE:SHORTCODE (e.g. ingest:E_AUTH_FAILED; the stage in any case), missing:SUPPLIER or unknown';
const ORG_HELP = 'the org (needed when several have the dataset; with --cause, when the mirror has several)';
const BY_HELP = `who (1–${MAX_ACK_NAME_LENGTH} characters; default: Settings → Triage name, else the OS user)`;

export function ackCommand(io: CliIo): Command {
  return new Command('ack')
    .description(
      "acknowledge a dataset's current failure (FAILED or MISSING), or with --cause every current failure of a cause",
    )
    .argument('[datasetId]', 'the dataset whose current failure to acknowledge')
    .option('--cause <id>', CAUSE_HELP)
    .option('--org <org>', ORG_HELP)
    .option('--note <text>', `a note for whoever looks next (at most ${MAX_NOTE_LENGTH} characters)`)
    .option('--by <name>', BY_HELP)
    .option('--json', 'print the new acknowledgements as JSON')
    .addOption(dataDirOption())
    .action(async (datasetId: string | undefined, options: AckOptions) => {
      const args = {
        datasetId,
        cause: options.cause,
        org: options.org,
        note: options.note,
        by: options.by,
        json: options.json === true,
      };
      // Usage errors (exit 2) before the data directory is opened or the command handed over.
      const { checkAckNote, checkAckTarget } = await import('../../control/commands/ack');
      checkAckTarget(args);
      checkAckNote(args.note);
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'ack', args);
    });
}

export function unackCommand(io: CliIo): Command {
  return new Command('unack')
    .description(
      "withdraw the acknowledgement of a dataset's failure, or with --cause of every failure of a cause",
    )
    .argument('[datasetId]', 'the dataset whose acknowledgement to withdraw')
    .option('--cause <id>', CAUSE_HELP)
    .option('--org <org>', ORG_HELP)
    .option('--by <name>', `${BY_HELP}, for the dataset's timeline`)
    .option('--json', 'print the withdrawn acknowledgements as JSON')
    .addOption(dataDirOption())
    .action(async (datasetId: string | undefined, options: Omit<AckOptions, 'note'>) => {
      const args = {
        datasetId,
        cause: options.cause,
        org: options.org,
        by: options.by,
        json: options.json === true,
      };
      const { checkAckTarget } = await import('../../control/commands/ack');
      checkAckTarget(args);
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'unack', args);
    });
}
