/**
 * Replaces a file atomically: written to a temp file beside it, fsynced, then renamed over it, so a
 * reader or a crash sees the old file or the new one, never half of one. Owner-only permissions.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';

/** `write` receives a function that appends text; whatever it throws leaves the target untouched. */
export function writeFileAtomicSync<T>(target: string, write: (append: (text: string) => void) => T): T {
  const temp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    const result = write((text) => void writeSync(fd, text));
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, target);
    return result;
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // Already closed: the rename failed.
    }
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * As `writeFileAtomicSync`, with each write awaited (a large file, written while the event loop serves
 * others): `append` resolves once its bytes are with the system, so the caller produces no faster than the
 * disk takes them.
 */
export async function writeFileAtomic<T>(
  target: string,
  write: (append: (bytes: Uint8Array) => Promise<void>) => Promise<T>,
): Promise<T> {
  const temp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const handle = await open(temp, 'wx', 0o600);
  let closed = false;
  try {
    const result = await write(async (bytes) => {
      // A write may take part of the bytes: the rest go in the next.
      for (let at = 0; at < bytes.length;) at += (await handle.write(bytes, at)).bytesWritten;
    });
    await handle.sync();
    closed = true;
    await handle.close();
    await rename(temp, target);
    return result;
  } catch (error) {
    if (!closed) await handle.close().catch(() => {});
    await rm(temp, { force: true });
    throw error;
  }
}
