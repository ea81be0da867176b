/** The `dataset-health` command line (docs/architecture.md#the-cli): exit 0 on success, 1 on failure, 2 on usage errors. */
import { APP_VERSION } from '../../shared/version';
import { Command, CommanderError } from 'commander';
import { failureOf } from '../control/command';
import { ackCommand, unackCommand } from './commands/ack';
import { demoCommand } from './commands/demo';
import { handoffCommand } from './commands/handoff';
import { keysCommand } from './commands/keys';
import { rulesCommand } from './commands/rules';
import { exportCommand, importCommand } from './commands/snapshot';
import { serveCommand } from './commands/serve';
import { simulateCommand } from './commands/simulate';
import { sourcesCommand } from './commands/sources';
import { syncCommand } from './commands/sync';
import { teamCommand } from './commands/team';
import { uiCommand } from './commands/ui';
import type { CliIo } from './io';
import { printable } from '../store/tables/orgs';

export function buildProgram(io: CliIo): Command {
  const program = new Command('dataset-health')
    .description('Dataset Health: mirror dataset delivery health and serve the v2 health API locally')
    .version(APP_VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  for (const command of [
    serveCommand(io),
    keysCommand(io),
    importCommand(io),
    exportCommand(io),
    demoCommand(io),
    syncCommand(io),
    sourcesCommand(io),
    simulateCommand(io),
    uiCommand(io),
    ackCommand(io),
    unackCommand(io),
    handoffCommand(io),
    rulesCommand(io),
    teamCommand(io),
  ]) {
    program.addCommand(command);
  }
  // Every command, nested ones included, reports usage errors to us instead of exiting the process.
  const override = (command: Command): void => {
    command.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
    command.commands.forEach(override);
  };
  override(program);
  return program;
}

/** Runs the CLI and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    if (argv.length === 0) {
      program.outputHelp();
      return 2;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.exitCode === 0
        ? 0
        : 2;
    }
    // The same reading of an error as the running instance's (control/command.ts): one message either way,
    // on one line, whatever it quotes (a remote's error, a name): nothing in it drives the terminal.
    const failure = failureOf(error);
    io.stderr(`dataset-health: ${printable(failure.message.split('\n')[0]!)}\n`);
    return failure.exit;
  }
}
