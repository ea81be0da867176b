/**
 * Replaces a file atomically: written to a temp file beside it, fsynced, then renamed over it, so a
 * reader or a crash sees the old file or the new one, never half of one. Owner-only permissions.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

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
