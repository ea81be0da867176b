/** What a CLI command may touch, injected so tests run commands in-process with their own clock. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  now(): Date;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM for the real CLI). */
  stopRequested(): Promise<string>;
}

/** A failure the user can act on: printed as one line on stderr, exit code 1. */
export class CliError extends Error {}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    now: () => new Date(),
    stopRequested: () =>
      new Promise((resolve) => {
        const stop = (signal: string): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve(signal);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      }),
  };
}
