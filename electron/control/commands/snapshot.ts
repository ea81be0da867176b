/**
 * `import --org ORG FILE` and `export --org ORG FILE` (DESIGN.md §7 snapshot format). Paths arrive
 * absolute (the CLI resolves them against its own working directory), so the running instance reads
 * and writes the same files the user named.
 */
import { type Stats, constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import Type from 'typebox';
import { exportSnapshot } from '../../query/exportSnapshot';
import { writeFileAtomicSync } from '../../store/atomicFile';
import { getOrg } from '../../store/orgs';
import { SnapshotError, importSnapshot, parseSnapshot } from '../../store/snapshot';
import { CommandError, command } from '../command';
import { checkOrg } from './org';

/** The default and the highest `--max-size` in MiB (the highest stays under V8's longest string). */
export const DEFAULT_IMPORT_MIB = 256;
export const MAX_IMPORT_MIB = 500;
const MiB = 1024 * 1024;
const CHUNK = 4 * MiB;

export const importData = command({
  args: Type.Object(
    {
      org: Type.String(),
      /** As the user typed it, for messages. */
      file: Type.String(),
      path: Type.String(),
      retention: Type.Integer({ minimum: 1, maximum: 100_000 }),
      /** The largest file read, in MiB (`--max-size`). */
      maxSize: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_IMPORT_MIB })),
    },
    { additionalProperties: false },
  ),
  async run({ store, now }, args, out) {
    checkOrg(args.org);
    absolute(args.path);
    const stop = watchStopSignals();
    try {
      const text = await readBounded(args.path, args.file, args.maxSize ?? DEFAULT_IMPORT_MIB, stop.check);
      const refused = (error: unknown): never => {
        if (error instanceof SnapshotError)
          throw new CommandError(`${args.file}: ${error.message} (nothing was imported)`);
        throw error;
      };
      let snapshot;
      try {
        snapshot = parseSnapshot(text);
      } catch (error) {
        refused(error);
      }
      const parsed = snapshot!;
      // A signal that came during the (synchronous) parse is acted on here, before anything is written.
      stop.check();
      await store.whenIdle(() => {
        stop.check();
        // From here on the import is one synchronous transaction: a signal now finds it done.
        try {
          importSnapshot(store, args.org, parsed, { now: now(), deliveriesPerDataset: args.retention });
        } catch (error) {
          refused(error);
        }
      });
      // Saved while a signal is still only noted, so the file on disk is the whole import or the old
      // data (a failed save is logged by the store and retried when it closes).
      await store.flush().catch(() => {});
      // A signal that came during the write is delivered before this resumes.
      await new Promise((resolve) => setImmediate(resolve));
      out.stderr(
        `Imported ${parsed.datasets.length} datasets and the tasks of ${parsed.tasks.size} deliveries into org ${args.org}.\n`,
      );
      const late = stop.received();
      if (late !== null)
        out.stderr(`${late} arrived while the import was being written; the import is complete.\n`);
    } finally {
      stop.dispose();
    }
  },
});

/**
 * SIGINT/SIGTERM while an import reads or parses: noted, and the import ends before it writes, so the
 * process exits with nothing changed (Node's own handling would wait for a read that never ends).
 */
function watchStopSignals(): { check: () => void; received: () => string | null; dispose: () => void } {
  let received: string | null = null;
  const note = (signal: NodeJS.Signals): void => {
    received = signal;
  };
  process.on('SIGINT', note);
  process.on('SIGTERM', note);
  return {
    check: () => {
      if (received !== null) throw new CommandError(`import stopped by ${received} (nothing was imported)`);
    },
    received: () => received,
    dispose: () => {
      process.off('SIGINT', note);
      process.off('SIGTERM', note);
    },
  };
}

/**
 * The file's text, read in chunks (a signal is seen between them) and never past the size limit: only
 * a regular file is read, so a device, fifo or directory can neither block nor stream without end.
 */
async function readBounded(path: string, file: string, maxMiB: number, check: () => void): Promise<string> {
  const cannot = (error: unknown): CommandError =>
    new CommandError(`cannot read ${file}: ${(error as Error).message} (nothing was imported)`);
  const limit = maxMiB * MiB;
  const refuseKind = (info: Stats): void => {
    if (info.isFile()) return;
    const kind = info.isDirectory()
      ? 'a directory'
      : info.isFIFO()
        ? 'a fifo (named pipe)'
        : info.isCharacterDevice() || info.isBlockDevice()
          ? 'a device'
          : info.isSocket()
            ? 'a socket'
            : 'not a regular file';
    throw new CommandError(`${file} is ${kind}; import reads regular files only (nothing was imported)`);
  };
  const tooBig = (size: string): CommandError =>
    new CommandError(
      `${file} is ${size}, over the import limit of ${maxMiB} MiB; --max-size <MiB> raises it (up to ${MAX_IMPORT_MIB}) (nothing was imported)`,
    );
  // Looked at before opening: opening a fifo would wait for a writer.
  let info: Stats;
  try {
    info = await stat(path);
  } catch (error) {
    throw cannot(error);
  }
  refuseKind(info);
  let handle;
  try {
    // Non-blocking, should the path have become a fifo since: the fstat below then refuses it.
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw cannot(error);
  }
  try {
    const opened = await handle.stat();
    refuseKind(opened);
    if (opened.size > limit) throw tooBig(`${(opened.size / MiB).toFixed(1)} MiB`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      check();
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK, limit + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      // It grew while being read.
      if (total > limit) throw tooBig(`over ${maxMiB} MiB`);
    }
    check();
    return Buffer.concat(chunks, total).toString('utf8');
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw cannot(error);
  } finally {
    await handle.close();
  }
}

export const exportData = command({
  args: Type.Object(
    {
      org: Type.String(),
      /** Absolute, or `-` for stdout. */
      path: Type.String(),
    },
    { additionalProperties: false },
  ),
  async run({ store }, { org, path }, out) {
    checkOrg(org);
    if (path !== '-') absolute(path);
    await store.whenIdle(() => {
      if (!getOrg(store, org)) throw new CommandError(`no org '${org}' in this data directory`);
      if (path === '-') {
        exportSnapshot(store, org, (text) => out.stdout(text));
        return;
      }
      // Written beside the target and renamed, so an interrupted export never leaves half a file.
      const counts = writeFileAtomicSync(path, (append) => exportSnapshot(store, org, append));
      out.stderr(
        `Exported ${counts.datasets} datasets and the tasks of ${counts.tasks} deliveries to ${path}.\n`,
      );
    });
  },
});

/** The instance's working directory is not the user's: only paths the CLI resolved are taken. */
function absolute(path: string): void {
  if (!isAbsolute(path)) throw new CommandError(`'${path}' is not an absolute path`);
}
