/**
 * Where a CLI command runs (DESIGN.md §3, one writer per data directory): when `serve` or the app holds
 * the directory, the command is handed to it over the control channel and what it prints is printed
 * here; otherwise the CLI takes the directory's lock and runs the same command itself. A lock or
 * control file left by a dead process is ignored (and the stale lock taken over); a damaged lock file
 * counts as held while it is recent (holderControl.ts).
 */
import type { Static } from 'typebox';
import { type CommandContext, CommandError, type CommandOutput, CommandUsageError } from '../control/command';
import { COMMANDS, type CommandName } from '../control/commands';
import { CONTROL_HEADER, CONTROL_PATH, type ControlLine } from '../control/server';
import type { ControlInfo } from '../store/controlFile';
import { DataDirLockDamagedError, DataDirLockedError, readDataDirLock } from '../store/lock';
import { openHeadlessSettings } from '../store/settings';
import type { CliIo } from './io';
import { damagedLockControl, instanceControl } from './holderControl';
import { openDataDir } from './openStore';

type Args<N extends CommandName> = Static<(typeof COMMANDS)[N]['args']>;
type Result<N extends CommandName> = Awaited<ReturnType<(typeof COMMANDS)[N]['run']>>;

export interface RunOptions {
  /** When no instance runs: the command needs one (`ui`), and this is why. */
  instanceOnly?: string;
}

/** Runs a command here or in the running instance; a `CommandError` from either is the CLI's exit 1. */
export async function runCommand<N extends CommandName>(
  io: CliIo,
  dataDir: string,
  name: N,
  args: Args<N>,
  options: RunOptions = {},
): Promise<Result<N>> {
  for (let attempt = 0; ; attempt++) {
    const holder = readDataDirLock(dataDir);
    if (holder !== null) {
      const control =
        holder === 'damaged' ? await damagedLockControl(dataDir) : await instanceControl(dataDir, holder);
      if (control) return (await runRemote(io, control, name, args)) as Result<N>;
      // The holder let go while we waited (it was quitting), or rewrote its damaged lock file: look again.
      continue;
    }
    if (options.instanceOnly) throw new CommandError(options.instanceOnly);
    try {
      return await runHere(io, dataDir, name, args);
    } catch (error) {
      // An instance started between the look and the lock: hand it the command instead.
      if ((error instanceof DataDirLockedError || error instanceof DataDirLockDamagedError) && attempt === 0)
        continue;
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
  const opened = await openDataDir(dataDir, name.replace('.', ' '), io);
  try {
    const context: CommandContext = {
      store: opened.store,
      dataDir,
      now: () => io.now(),
      // Opened only by the commands that read it (`ack` for who acknowledges).
      settings: () =>
        openHeadlessSettings(
          dataDir,
          opened.store,
          () => io.now(),
          (movedTo) =>
            io.stderr(`The settings file was not valid: moved to ${movedTo}; using the defaults.\n`),
        ).read(),
    };
    const definition = COMMANDS[name] as { run: (...a: unknown[]) => Promise<unknown> };
    return (await definition.run(context, args, io)) as Result<N>;
  } finally {
    await opened.close();
  }
}

async function runRemote(
  io: CliIo,
  control: ControlInfo,
  name: CommandName,
  args: unknown,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${control.url}${CONTROL_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [CONTROL_HEADER]: control.secret },
      body: JSON.stringify({ command: name, args }),
    });
  } catch (error) {
    throw new CommandError(
      `the running ${control.purpose} (process ${control.pid}) did not answer at ${control.url}: ${describe(error)}`,
    );
  }
  if (!response.ok || response.body === null) {
    const text = await response.text().catch(() => '');
    let message = text.trim() || response.statusText;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {
      // Not our error shape: the text as it came.
    }
    throw new CommandError(
      `the running ${control.purpose} (process ${control.pid}) refused the command: ${message}`,
    );
  }
  return readAnswer(io, response.body, control);
}

/** Prints the streamed lines as they arrive; the last one says how the command ended. */
async function readAnswer(
  out: CommandOutput,
  body: ReadableStream<Uint8Array>,
  control: ControlInfo,
): Promise<unknown> {
  const decoder = new TextDecoder();
  let pending = '';
  const lines = async function* () {
    for await (const chunk of body) {
      pending += decoder.decode(chunk, { stream: true });
      const parts = pending.split('\n');
      pending = parts.pop()!;
      yield* parts;
    }
  };
  try {
    for await (const text of lines()) {
      if (text === '') continue;
      const line = JSON.parse(text) as ControlLine;
      if ('stdout' in line) out.stdout(line.stdout);
      else if ('stderr' in line) out.stderr(line.stderr);
      else if (line.exit === 0) return line.result;
      else if (line.exit === 2) throw new CommandUsageError(line.error);
      else throw new CommandError(line.error);
    }
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw new CommandError(
      `the answer of the running ${control.purpose} (process ${control.pid}) broke off: ${describe(error)}`,
    );
  }
  throw new CommandError(
    `the running ${control.purpose} (process ${control.pid}) stopped before the command ended; see its log`,
  );
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
