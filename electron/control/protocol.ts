/**
 * The control channel's wire, shared by its two ends: the instance's server (server.ts) and the CLI's
 * client (cli/controlClient.ts), which loads this alone and not the server's commands.
 */
export const CONTROL_PATH = '/control/v1/run';
/** The header carrying the secret of control.json. */
export const CONTROL_HEADER = 'x-dataset-health-control';

/** One line of the answer stream (exit 2: a usage error the command found, `CommandUsageError`). */
export type ControlLine =
  { stdout: string } | { stderr: string } | { exit: 0; result: unknown } | { exit: 1 | 2; error: string };
