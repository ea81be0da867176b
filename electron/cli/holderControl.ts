/**
 * Finding the control channel of the process that holds a data directory (docs/decisions.md, CLI):
 * `control.json`, written by `serve` or the app once its channel is open and kept by it while it runs.
 * Each wait ends in an error that says what is really wrong: a holder with no channel (another CLI
 * command), an instance still starting, a damaged control file, a damaged lock file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CONTROL_FILE, type ControlInfo, readControlFile } from '../store/instance/controlFile';
import { CommandUsageError } from '../control/command';
import { printable } from '../store/tables/orgs';
import { INSTANCE_FILE_REFRESH_MS } from '../store/instance/instanceFile';
import {
  DataDirLockedError,
  type DataDirLockHolder,
  damagedLockError,
  isProcessAlive,
  readDataDirLock,
} from '../store/instance/lock';

/** Purposes of holders that serve a control channel (a CLI command holding the lock does not). */
const INSTANCES = new Set(['serve', 'app']);
/**
 * How long a command waits for an instance that cannot take it yet: one that holds the lock without a
 * control.json (starting, or stopping: it removes the file first), or one that is shutting down or
 * does not answer (until it lets go of the directory). Then it says so instead (docs/decisions.md).
 * `DATASET_HEALTH_WAIT_SECONDS` changes it: a script may rather fail at once than wait.
 */
export const INSTANCE_WAIT_MS = 30_000;
export const WAIT_ENV = 'DATASET_HEALTH_WAIT_SECONDS';
const MAX_WAIT_SECONDS = 3600;

/** The wait for an instance (INSTANCE_WAIT_MS unless the environment says otherwise), in ms. */
export function instanceWaitMs(env: NodeJS.ProcessEnv): number {
  const text = env[WAIT_ENV];
  if (text === undefined || text === '') return INSTANCE_WAIT_MS;
  const seconds = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds <= MAX_WAIT_SECONDS))
    throw new CommandUsageError(
      `${WAIT_ENV} must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}, not '${printable(text)}'`,
    );
  return seconds * 1000;
}
/** A live holder rewrites a damaged lock file within two refreshes. */
const DAMAGED_WAIT_MS = 3 * INSTANCE_FILE_REFRESH_MS;
const POLL_MS = 100;

/** One look's wait while a holder gets ready or lets go. */
export const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, POLL_MS));

/**
 * The live holder's control channel, or null once the holder lets go (an instance quitting removes its
 * control file first). A CLI command holding the lock, or an instance that never gets ready, is an error.
 */
export async function instanceControl(
  dataDir: string,
  holder: DataDirLockHolder,
  waitMs: number,
): Promise<ControlInfo | null> {
  const deadline = Date.now() + (INSTANCES.has(holder.purpose) ? waitMs : 0);
  for (;;) {
    const control = readControlFile(dataDir);
    if (control !== null && control.pid === holder.pid) return control;
    if (hasLetGo(dataDir, holder, null)) return null;
    if (Date.now() >= deadline) throw notReady(dataDir, holder, waitMs);
    await pause();
  }
}

/**
 * The holder no longer holds the directory: it released it, died, or another process took it. A holder
 * read from a damaged lock file (`'damaged'`: known only by the control file it wrote) has let go once
 * the lock file reads again or its process is gone.
 */
export function hasLetGo(
  dataDir: string,
  holder: DataDirLockHolder | 'damaged',
  control: Pick<ControlInfo, 'pid'> | null,
): boolean {
  const now = readDataDirLock(dataDir);
  if (holder === 'damaged') return now !== 'damaged' || (control !== null && !isProcessAlive(control.pid));
  return now === null || now === 'damaged' || now.pid !== holder.pid || now.startedAt !== holder.startedAt;
}

/** Why a live holder takes no command, in words that are true of it. */
function notReady(dataDir: string, holder: DataDirLockHolder, waitMs: number): DataDirLockedError {
  if (!INSTANCES.has(holder.purpose)) return new DataDirLockedError(dataDir, holder);
  const seconds = waitMs / 1000;
  if (!existsSync(join(dataDir, CONTROL_FILE)))
    return new DataDirLockedError(
      dataDir,
      holder,
      `it has not opened its control channel after ${seconds} s (no ${CONTROL_FILE}): ` +
        'try again once it has started, or stop it first',
    );
  // The instance rewrites a damaged control file within seconds: one still damaged after the wait is
  // one it cannot write (or an instance of a version that did not).
  return new DataDirLockedError(
    dataDir,
    holder,
    `its control file ${join(dataDir, CONTROL_FILE)} is damaged or names another process, so the command ` +
      `cannot be handed to it (waited ${seconds} s): restart it, or stop it and run the command again`,
  );
}

/**
 * While the lock file is damaged (unreadable, changed recently): the instance `control.json` names, if
 * it lives, takes the command (only the lock's holder writes that file; a stale one fails to answer, it
 * never makes a second writer). Else null once the lock file reads again (its holder rewrote it) or went
 * stale; still damaged after a few refreshes, the error says what to do.
 */
export async function damagedLockControl(dataDir: string): Promise<ControlInfo | null> {
  const deadline = Date.now() + DAMAGED_WAIT_MS;
  for (;;) {
    const control = readControlFile(dataDir);
    if (control !== null && INSTANCES.has(control.purpose) && isProcessAlive(control.pid)) return control;
    if (readDataDirLock(dataDir) !== 'damaged') return null;
    if (Date.now() >= deadline) {
      const damaged = damagedLockError(dataDir);
      if (damaged === null) return null;
      throw damaged;
    }
    await pause();
  }
}
