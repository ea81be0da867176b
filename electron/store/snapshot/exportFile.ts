/**
 * Writing a file the user names (`export FILE`, Settings → Data's export), docs/decisions.md "The data
 * directory is the engine's alone": never inside the data directory, whose files only the engine may
 * write (an export over a journal, the lock or control.json loses or breaks the mirror), except into its
 * `exports/` folder, where the window's own exports go and nothing of the engine lives. Where a path
 * lies is decided on the real folders (symlinks and `..` resolved, folders compared by device and inode),
 * so no spelling of the data directory, link to it or link inside it reaches its files.
 */
import { type BigIntStats, lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { writeFileAtomic } from '../instance/atomicFile';

/** The data directory's folder for exports (the window writes `<org>-<time>.json` there). */
export const EXPORTS_FOLDER = 'exports';

/** A target refused or not writable: one line for the user, never naming the temp file. */
export class ExportFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportFileError';
  }
}

/**
 * Writes `path` atomically (writeFileAtomic: a temp file beside it, fsynced, renamed over it) once it is
 * known to lie outside `dataDir` or in its `exports/` folder (made when missing, as the window makes it).
 * `append` resolves once its bytes are written, so a large export never queues in memory. What `write`
 * throws is passed on, and leaves no file; a refused target or a failed write is an `ExportFileError`.
 */
export async function writeExportFile<T>(
  dataDir: string,
  path: string,
  write: (append: (bytes: Uint8Array) => Promise<void>) => Promise<T>,
): Promise<T> {
  const target = resolve(path);
  try {
    return await writeFileAtomic(exportTarget(dataDir, target), write);
  } catch (error) {
    if (!isFileSystemError(error)) throw error;
    throw new ExportFileError(`cannot write ${target}: ${failure(error, target)}`);
  }
}

/**
 * Where `target` (absolute) is written: the same name in the real folder that holds it, once that folder
 * is checked; throws `ExportFileError` for a target inside the data directory or one that cannot be
 * written (a missing folder, a folder as target).
 */
function exportTarget(dataDir: string, target: string): string {
  const data = identity(dataDir);
  // The deepest folder of the path that exists: what is beneath it does not exist yet (so holds no
  // link), and its real path says where the rest would be made.
  let existing = dirname(target);
  const missing: string[] = [];
  while (!exists(existing) && dirname(existing) !== existing) {
    missing.unshift(basename(existing));
    existing = dirname(existing);
  }
  const real = realpathSync(existing);
  const place = data === null ? 'outside' : placeOf(real, data, exportsFolder(dataDir));
  const refuse = (itself = false) =>
    new ExportFileError(
      `will not write ${target}: it is ${itself ? 'the' : 'inside the'} data directory ${dataDir}, whose ` +
        `files only Dataset Health writes; export to a file outside it, or into ${join(dataDir, EXPORTS_FOLDER)}`,
    );
  if (place === 'inside') {
    const exportsToMake =
      missing.length === 1 &&
      missing[0] === EXPORTS_FOLDER &&
      same(identity(real), data) &&
      lstatSync(join(real, EXPORTS_FOLDER), { throwIfNoEntry: false }) === undefined;
    if (!exportsToMake) throw refuse();
    mkdirSync(join(real, EXPORTS_FOLDER), { mode: 0o700 });
    return join(real, EXPORTS_FOLDER, basename(target));
  }
  const cannot = (why: string) => new ExportFileError(`cannot write ${target}: ${why}`);
  if (!isFolder(real)) throw cannot(`${existing} is not a folder`);
  if (missing.length > 0) throw cannot(`the folder ${dirname(target)} does not exist`);
  if (isFolder(target)) {
    // A link to the data directory named as the file: refused like the directory itself.
    if (data !== null && placeOf(realpathSync(target), data, exportsFolder(dataDir)) === 'inside')
      throw refuse(same(identity(target), data));
    throw cannot('it is a folder; name a file in it');
  }
  return join(real, basename(target));
}

type Identity = Pick<BigIntStats, 'dev' | 'ino'>;

/** A folder or file by device and inode: the same however it is spelled or reached (case, links, mounts). */
function identity(path: string): Identity | null {
  try {
    const { dev, ino } = statSync(path, { bigint: true });
    return { dev, ino };
  } catch {
    return null;
  }
}

/** False for a path that is not there (or runs through a file); a folder that cannot be read throws. */
function exists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
    throw error;
  }
}

function same(a: Identity | null, b: Identity | null): boolean {
  return a !== null && b !== null && a.dev === b.dev && a.ino === b.ino;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `exports/` when it is a real folder of the data directory, not a link (which could lead back into it). */
function exportsFolder(dataDir: string): Identity | null {
  const info = lstatSync(join(dataDir, EXPORTS_FOLDER), { bigint: true, throwIfNoEntry: false });
  return info?.isDirectory() ? { dev: info.dev, ino: info.ino } : null;
}

/**
 * Where an existing real path (no links left in it) lies: inside the data directory, within its real
 * `exports/` folder, or outside. Walks up the folders that hold it.
 */
function placeOf(real: string, data: Identity, exports: Identity | null): 'inside' | 'exports' | 'outside' {
  let below: Identity | null = null;
  for (let path = real; ; path = dirname(path)) {
    const here = identity(path);
    if (same(here, data)) return below !== null && same(below, exports) ? 'exports' : 'inside';
    if (dirname(path) === path) return 'outside';
    below = here;
  }
}

function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/** Why a write failed, in words (the system's message names the temp file). */
function failure(error: NodeJS.ErrnoException, target: string): string {
  const folder = dirname(target);
  switch (error.code) {
    case 'ENOENT':
      return `the folder ${folder} does not exist`;
    case 'ENOTDIR':
      return `${folder} is not a folder`;
    case 'EISDIR':
      return 'it is a folder; name a file in it';
    case 'EACCES':
    case 'EPERM':
      return `no permission to write in the folder ${folder}`;
    case 'EROFS':
      return `the folder ${folder} is on a read-only file system`;
    case 'ENOSPC':
      return 'the disk is full';
    case 'EDQUOT':
      return 'the disk quota is used up';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    default:
      return `the system refused it (${error.code ?? error.syscall})`;
  }
}
