import { CommandError } from '../control/command';
import type { OpenJournalFile } from '../store/durability/journal';

/** What a CLI command may touch, injected so tests run commands in-process with their own clock. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Resolves once stdout took what it was given (CommandOutput's `drain`). */
  drain?(): Promise<void>;
  env: NodeJS.ProcessEnv;
  now(): Date;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM for the real CLI). */
  stopRequested(): Promise<string>;
  /** Opens a URL in the user's default browser (`ui --open`). */
  openUrl(url: string): Promise<void>;
  /** How the store opens its journal files (default: the file system; tests: a disk that fills up). */
  openJournal?: OpenJournalFile;
}

/** A failure the user can act on: printed as one line on stderr, exit code 1 (also from a running instance). */
export { CommandError as CliError } from '../control/command';

/** Resolves once `stream` has written what it queued; rejects when it fails or closes first. */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed) return Promise.reject(new CommandError('stdout was closed'));
  if (!stream.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (): void => {
      off();
      resolve();
    };
    const gone = (): void => {
      off();
      reject(new CommandError('stdout was closed'));
    };
    const off = (): void => {
      stream.off('drain', done);
      stream.off('close', gone);
      stream.off('error', gone);
    };
    stream.once('drain', done);
    stream.once('close', gone);
    stream.once('error', gone);
  });
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    // A pipe or file on Linux takes each write at once; a socket or a terminal elsewhere may queue.
    drain: () => drained(process.stdout),
    env: process.env,
    now: () => new Date(),
    openUrl: async (url) => {
      // Loaded on use: only `ui --open` needs it, and every command's start would pay for it.
      const { default: open } = await import('open');
      await open(url);
    },
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
