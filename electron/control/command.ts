/**
 * The commands a CLI run hands to the running instance (docs/architecture.md#hand-over-to-a-running-instance, one writer): each is one function
 * over a store and an output, run either by the CLI itself (the data directory is free) or by `serve` or
 * the app that holds the directory, at the request of the CLI over the control channel. Same code, same
 * words, same exit: a user cannot tell which ran it, except that it works while the app is open.
 */
import type { Static, TSchema } from 'typebox';
import type { Settings } from '../../shared/settings';
import type { OnCallKnowledge } from '../knowledge/service';
import type { Store } from '../store/database';
import type { SourcesSync } from '../sync/sourcesSync';
import type { SecretKeeper } from '../sync/secrets';
import type { TeamDatabase } from '../store/teamDb/driver';
import type { TeamStatus } from '../../shared/teamStatus';

/** Where a command prints: the CLI's own stdout/stderr, or the control channel's stream to it. */
export interface CommandOutput {
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * Resolves once the reader has taken what `stdout` was given, down to a bounded amount (backpressure:
   * a large `export -` waits here between slices, never queuing the file in memory); rejects with a
   * `CommandError` when the reader is gone. Absent where stdout never queues (a test's collector).
   */
  drain?(): Promise<void>;
}

/** A failure the user can act on: one line on stderr, exit code 1 (the CLI's `CliError`). */
export class CommandError extends Error {}

/**
 * A request a command finds malformed only once it sees the store (`ack --cause` without `--org` among
 * several orgs): a usage error, exit code 2, on both paths.
 */
export class CommandUsageError extends CommandError {}

/** What the instance holding the data directory adds to a command's context. */
export interface RunningInstance {
  /** `serve` or `app`, for messages. */
  purpose: string;
  pid: number;
  sync: SourcesSync;
  /** Where the instance takes remote keys from (its environment headless, the keychain in the app). */
  secrets: SecretKeeper;
  /** Restarts the sync from the stored sources (after `sources add|remove`), as Settings does. */
  reloadSync(): Promise<void>;
  /** A fresh one-time web UI link, when the instance serves the web UI (`serve --ui`). */
  newWebUiLink?: () => string;
  /** The instance's on-call layer (docs/architecture.md#the-on-call-layer): its history in memory and its sources' states. */
  knowledge: OnCallKnowledge;
  /** The stored acknowledgements or snoozes changed: the alerts redraw the tray (as the window's calls do). */
  alertsChanged(): void;
  /** A dead letter was sent again: the instance's route deliverer looks at the outbox now (absent: at its next look). */
  routesChanged?(): void;
  /**
   * Aborted when the instance starts to stop: a command that could run on for minutes (a one-off sync)
   * ends now, since the instance waits for every command in flight before it closes (docs/decisions.md).
   */
  stopping: AbortSignal;
  /** The instance as a team member (its exchanges), and as a team server (its database) under `team serve`. */
  team: {
    members: {
      /** Starts the exchanges of the linked orgs afresh (after `team join|leave`). */
      reload(): Promise<void>;
      statuses(): TeamStatus[];
    };
    db?: TeamDatabase;
  };
}

export interface CommandContext {
  store: Store;
  /** The folder the store lives in: a file the user names is never written inside it (store/snapshot/exportFile.ts). */
  dataDir: string;
  now(): Date;
  /**
   * The data directory's settings: the running instance's own, else the settings file read on demand
   * (loaded then: the commands that never read it start without it).
   */
  settings(): Promise<Settings>;
  /** Present when the command runs inside `serve` or the app (the control channel). */
  instance?: RunningInstance;
}

export interface ControlledCommand<S extends TSchema = TSchema, R = unknown> {
  /** The request: checked before the command runs, on both paths. */
  args: S;
  run(ctx: CommandContext, args: Static<S>, out: CommandOutput): Promise<R>;
  /**
   * How the user finds out whether the command was done, when the running instance's answer broke off
   * after the command started (the instance was killed): what to look at, or that running it again is
   * safe. Each command decides for itself (docs/decisions.md, "Beside a running instance").
   */
  ifOutcomeUnknown(args: Static<S>): string;
}

/** How a failed command ends, whichever door it came through: what the user reads, and the exit code. */
export interface Failure {
  message: string;
  exit: 1 | 2;
  /** Neither the user's mistake nor the system's refusal: a bug (the instance logs it, the CLI is told so). */
  bug: boolean;
}

/**
 * What of an error is the user's to read (one place for both doors, so a command fails with the same
 * words alone and through the instance): a `CommandError`, or a refusal by the operating system — a
 * Node system error, which carries `code` and `syscall` (`ENOENT: no such file or directory, open …`,
 * EACCES, ENOSPC). Anything else is a bug.
 */
export function failureOf(error: unknown): Failure {
  if (error instanceof CommandError)
    return { message: error.message, exit: error instanceof CommandUsageError ? 2 : 1, bug: false };
  const message = error instanceof Error ? error.message : String(error);
  return { message, exit: 1, bug: !isSystemError(error) };
}

function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  if (!(error instanceof Error)) return false;
  const { code, syscall } = error as NodeJS.ErrnoException;
  return typeof code === 'string' && typeof syscall === 'string';
}

/** The outcome-unknown advice of a command that changes nothing. */
export const READ_ONLY = 'it changes nothing: safe to run again';

/** A command definition with its argument and result types inferred. */
export function command<S extends TSchema, R>(definition: ControlledCommand<S, R>): ControlledCommand<S, R> {
  return definition;
}
