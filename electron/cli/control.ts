/**
 * Where a CLI command runs (docs/architecture.md#hand-over-to-a-running-instance, one writer per data directory): when `serve` or the app holds
 * the directory, the command is handed to it over the control channel and what it prints is printed
 * here; otherwise the CLI takes the directory's lock and runs the same command itself. A lock or
 * control file left by a dead process is ignored (and the stale lock taken over); a damaged lock file
 * counts as held while it is recent (holderControl.ts). An instance that answers not a byte (shutting
 * down, or killed after we read its control file) is waited for to let go, then the command runs here;
 * one whose answer breaks off after it began is never run again: the user is told the outcome is
 * unknown and how to find out (docs/decisions.md, "Beside a running instance").
 */
import { readdir } from 'node:fs/promises';
import type { Static } from 'typebox';
import { type CommandContext, CommandError, type CommandOutput } from '../control/command';
import type { COMMANDS, CommandName } from '../control/commands';
import type { ControlInfo } from '../store/instance/controlFile';
import { DATABASE_FILE, isErrno } from '../store/durability/files';
import { DataDirLockDamagedError, DataDirLockedError, readDataDirLock } from '../store/instance/lock';
import { COMMAND_MODULES } from './commandModules';
import type { CliIo } from './io';
import type { HandOver } from './controlClient';
import { damagedLockControl, hasLetGo, instanceControl, instanceWaitMs, pause } from './holderControl';

type Args<N extends CommandName> = Static<(typeof COMMANDS)[N]['args']>;
type Result<N extends CommandName> = Awaited<ReturnType<(typeof COMMANDS)[N]['run']>>;

export interface RunOptions<R> {
  /** When no instance runs: the command needs one (`ui`), and this is why. */
  instanceOnly?: string;
  /**
   * When no instance runs and the data directory holds no database yet (`keys list` on a new one): what
   * the command prints of an empty store, said without loading sql.js or writing a database to find it.
   */
  emptyStore?: (out: CommandOutput) => R;
}

/** Runs a command here or in the running instance; a `CommandError` from either is the CLI's exit 1. */
export async function runCommand<N extends CommandName>(
  io: CliIo,
  dataDir: string,
  name: N,
  args: Args<N>,
  options: RunOptions<Result<N>> = {},
): Promise<Result<N>> {
  const waitMs = instanceWaitMs(io.env);
  // Lost the race for the lock once already: a second loss is an answer, not a race.
  let raced = false;
  for (;;) {
    const holder = readDataDirLock(dataDir);
    if (holder !== null) {
      const control =
        holder === 'damaged'
          ? await damagedLockControl(dataDir)
          : await instanceControl(dataDir, holder, waitMs);
      // The holder let go while we waited (it was quitting), or rewrote its damaged lock file: look again.
      if (!control) continue;
      // Loaded only to hand over: the client, and none of the commands unless its answer breaks off.
      const { handOver } = await import('./controlClient');
      const answer = await handOver(io, control, name, args);
      if (answer.answered) return answer.result as Result<N>;
      // Not a byte of an answer: the command did not start there, so it may run here once that
      // instance has let go — at once if it is dead (killed after we read its control file).
      await untilReleased(io, () => hasLetGo(dataDir, holder, control), control, answer, waitMs);
      continue;
    }
    if (options.instanceOnly) throw new CommandError(options.instanceOnly);
    if (options.emptyStore && !(await holdsDatabase(dataDir))) return options.emptyStore(io);
    try {
      return await runHere(io, dataDir, name, args);
    } catch (error) {
      // An instance started between the look and the lock: hand it the command instead.
      if ((error instanceof DataDirLockedError || error instanceof DataDirLockDamagedError) && !raced) {
        raced = true;
        continue;
      }
      throw error;
    }
  }
}

async function runHere<N extends CommandName>(
  io: CliIo,
  dataDir: string,
  name: N,
  args: Args<N>,
): Promise<Result<N>> {
  // The store and the command's own module, loaded as the command runs here.
  const [{ openDataDir }, definition] = await Promise.all([import('./openStore'), COMMAND_MODULES[name]()]);
  const opened = await openDataDir(dataDir, name.replace('.', ' '), io);
  try {
    const context: CommandContext = {
      store: opened.store,
      dataDir,
      now: () => io.now(),
      // Loaded and opened only by the commands that read it (`ack` for who acknowledges).
      settings: async () =>
        (await import('../store/tables/settings'))
          .openHeadlessSettings(
            dataDir,
            opened.store,
            () => io.now(),
            (movedTo) =>
              io.stderr(`The settings file was not valid: moved to ${movedTo}; using the defaults.\n`),
          )
          .read(),
    };
    const run = definition.run as (...a: unknown[]) => Promise<unknown>;
    return (await run(context, args, io)) as Result<N>;
  } finally {
    await opened.close();
  }
}

/**
 * Waits, within `waitMs`, until the instance that did not answer has let go of the directory (a
 * dead one has); then the caller looks again. Past that it says so, and that nothing was done.
 */
async function untilReleased(
  io: CliIo,
  released: () => boolean,
  control: ControlInfo,
  why: Extract<HandOver, { answered: false }>,
  waitMs: number,
): Promise<void> {
  if (released()) return;
  const who = `running ${control.purpose} (process ${control.pid})`;
  const state = why.shuttingDown ? 'is shutting down' : `did not answer at ${control.url} (${why.detail})`;
  io.stderr(`The ${who} ${state}: waiting for it to release the data directory…\n`);
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    await pause();
    if (released()) return;
  }
  throw new CommandError(
    `the ${who} ${state} and still holds the data directory after ${waitMs / 1000} s; nothing was done: run the command again once it has stopped`,
  );
}

/**
 * Whether the data directory holds a database: any of the store's files (`health.sqlite`, its backup,
 * its journals: docs/storage.md). A missing directory holds none.
 */
async function holdsDatabase(dataDir: string): Promise<boolean> {
  try {
    return (await readdir(dataDir)).some((name) => name.startsWith(DATABASE_FILE));
  } catch (error) {
    // Anything but a missing directory (a file, no permission): opening it says what is wrong, as before.
    return !isErrno(error, 'ENOENT');
  }
}
