/**
 * The file `import` reads (docs/decisions.md "Import"): a regular file only, of any size, read in chunks
 * up to the size it had when opened; a read that brings nothing for a while is given up on.
 */
import { type Stats, constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { CommandError } from '../command';
import { noteHungRead } from '../hungReads';

const MiB = 1024 * 1024;
/** Read a chunk at a time: each is checked and written in one slice of the transaction that imports it. */
const CHUNK = MiB;

/** What import needs of an opened file (a `FileHandle`; tests give one whose read never ends). */
export interface ImportHandle {
  stat(): Promise<Stats>;
  read(buffer: Buffer, offset: number, length: number, position: null): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

export interface ImportFileOptions {
  /** `--max-size` in bytes: an upper bound the user asked for; none by default. */
  maxBytes?: number;
  /** `--max-size` as given, in MiB, for its message. */
  maxMiB?: number;
  /** A read that brings nothing for this long is given up on. */
  stallMs: number;
  /** Calls `fn` once after `ms`; returns its cancel (tests fire it themselves). */
  after(ms: number, fn: () => void): () => void;
  open(path: string): Promise<ImportHandle>;
}

/** Non-blocking, should the path have become a fifo since it was looked at: the fstat then refuses it. */
export const openForImport = (path: string): Promise<ImportHandle> =>
  open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));

export interface ImportFile {
  /** The file's size when it was opened: what is read, and what progress counts against. */
  size: number;
  /**
   * The file's bytes in chunks, never past `size`; `check` runs before each read and at the end. A
   * chunk's buffer is reused once the next one is asked for.
   */
  chunks(check: () => void): AsyncGenerator<Buffer>;
  /** The bytes handed out so far. */
  read(): number;
  close(): Promise<void>;
}

/**
 * Opens the file to import: only a regular file is read, so a device, fifo or directory can neither
 * block nor stream without end; it is read up to the size it had when opened (a file that grows while
 * read is refused), and a read that brings nothing for `stallMs` (a hung network or FUSE mount) stops
 * the import.
 */
export async function openImportFile(
  path: string,
  file: string,
  options: ImportFileOptions,
): Promise<ImportFile> {
  const cannot = (error: unknown): CommandError =>
    new CommandError(`cannot read ${file}: ${(error as Error).message} (nothing was imported)`);
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
  // Looked at before opening: opening a fifo would wait for a writer.
  let info: Stats;
  try {
    info = await stat(path);
  } catch (error) {
    throw cannot(error);
  }
  refuseKind(info);
  let handle: ImportHandle;
  try {
    handle = await options.open(path);
  } catch (error) {
    throw cannot(error);
  }
  let size: number;
  try {
    const opened = await handle.stat();
    refuseKind(opened);
    size = opened.size;
    if (options.maxBytes !== undefined && size > options.maxBytes)
      throw new CommandError(
        `${file} is ${(size / MiB).toFixed(1)} MiB, over the import limit of ${options.maxMiB} MiB set by --max-size (nothing was imported)`,
      );
  } catch (error) {
    await handle.close();
    if (error instanceof CommandError) throw error;
    throw cannot(error);
  }
  return reader(handle, file, size, options);
}

function reader(handle: ImportHandle, file: string, size: number, options: ImportFileOptions): ImportFile {
  const cannot = (error: unknown): CommandError =>
    new CommandError(`cannot read ${file}: ${(error as Error).message} (nothing was imported)`);
  const stalled = new CommandError(
    `no data from ${file} for ${options.stallMs / 1000} s (nothing was imported)`,
  );
  let total = 0;
  let handedOut = 0;
  /** A read that never came back: the handle cannot be closed before it does (FileHandle waits for it). */
  let hung = false;
  // Two buffers, read into in turn: one is read into while the caller works on the other (which it
  // is done with when it asks for the next). Fresh buffers for each chunk would each be external memory
  // that V8 answers with a full garbage collection every few dozen MiB.
  const buffers = [Buffer.allocUnsafeSlow(CHUNK), Buffer.allocUnsafeSlow(CHUNK)];
  let turn = 0;
  const read = (): Promise<Buffer> => {
    const buffer = buffers[turn++ % 2]!;
    // One byte past the size it was opened with: a file that grew has it.
    const reading = handle.read(buffer, 0, Math.min(CHUNK, size + 1 - total), null);
    const guarded = new Promise<Buffer>((resolve, reject) => {
      let done = false;
      const cancel = options.after(options.stallMs, () => {
        if (done) return;
        hung = true;
        noteHungRead();
        reject(stalled);
      });
      reading.then(
        ({ bytesRead }) => {
          done = true;
          cancel();
          total += bytesRead;
          resolve(buffer.subarray(0, bytesRead));
        },
        (error: unknown) => {
          done = true;
          cancel();
          reject(cannot(error));
        },
      );
    });
    // Read ahead while the caller works: its failure is seen when the caller asks for it.
    guarded.catch(() => {});
    return guarded;
  };
  return {
    size,
    read: () => handedOut,
    async *chunks(check) {
      // The next chunk is read while the caller works on this one.
      let next: Promise<Buffer> | null = null;
      try {
        for (;;) {
          check();
          const chunk = await (next ?? read());
          next = null;
          if (chunk.length === 0) break;
          if (total > size)
            throw new CommandError(
              `${file} grew while being read (it was ${size} bytes when opened); import it once it is complete (nothing was imported)`,
            );
          next = read();
          handedOut += chunk.length;
          yield chunk;
        }
        check();
      } finally {
        // A read still under way when the caller stops must end before the file is closed, unless it
        // hung: then nothing can wait for it.
        if (!hung) await next?.catch(() => {});
      }
    },
    close: async () => {
      // Closed once the hung read comes back, if ever; the import is over either way.
      if (hung) void handle.close().catch(() => {});
      else await handle.close();
    },
  };
}
