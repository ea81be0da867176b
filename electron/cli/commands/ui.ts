/**
 * `ui [--open]`: a fresh one-time link to the web UI of the running `serve --ui` (docs/architecture.md#the-cli), so a
 * used or lost link never needs a restart; `--open` opens it in the default browser.
 */
import { Command } from 'commander';
import { resolveDataDir } from '../../store/instance/dataDir';
import { runCommand } from '../control';
import type { CliIo } from '../io';
import { dataDirOption } from '../options';

export function uiCommand(io: CliIo): Command {
  return new Command('ui')
    .description('print a new one-time link to the web UI of the running `serve --ui`')
    .option('--open', 'also open it in the default browser')
    .addOption(dataDirOption())
    .action(async (options: { open?: boolean; dataDir?: string }) => {
      const { NO_WEB_UI_SERVE } = await import('../../control/commands/ui');
      const { url } = await runCommand(
        io,
        resolveDataDir(options.dataDir, io.env),
        'ui',
        {},
        { instanceOnly: NO_WEB_UI_SERVE },
      );
      if (options.open) await io.openUrl(url);
    });
}
