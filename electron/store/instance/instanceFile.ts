/**
 * The files a running instance (`serve`, the app) keeps in its data directory while it runs, each
 * naming the process (`pid`) and removed by it on exit (docs/architecture.md#hand-over-to-a-running-instance, docs/architecture.md#the-cli): `runtime.json`
 * (runtimeFile.ts) and `control.json` (controlFile.ts). Synchronous on purpose: they are tiny, and
 * shutdown paths remove them without awaiting anything. Owner-only, written atomically.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from './atomicFile';

/**
 * How often a running instance checks that its files in the data directory (the lock, control.json)
 * still say what it wrote, and rewrites one that does not.
 */
export const INSTANCE_FILE_REFRESH_MS = 2_000;

type FieldType = 'string' | 'number';

/** One such file: its fields by type (anything else in it is dropped, a file missing one is no file). */
export interface InstanceFile<T extends { pid: number }> {
  write(dataDir: string, info: T): void;
  /** Removes the file if it is process `pid`'s (default: this one), so a failed start never removes the live one's. */
  remove(dataDir: string, pid?: number): void;
  /** The contents, or null when the file is missing or not of this kind. */
  read(dataDir: string): T | null;
  /**
   * Writes `info` again whenever the file no longer reads as it (damaged, removed, overwritten), looking
   * every `periodMs`: what the file says stays true while the instance runs. Returns the stop; the timer
   * never keeps the process alive.
   */
  keep(dataDir: string, info: T, periodMs?: number): () => void;
}

export function instanceFile<T extends { pid: number }>(
  name: string,
  fields: Record<keyof T, FieldType>,
): InstanceFile<T> {
  const pick = (value: Record<string, unknown>): T | null => {
    const picked: Record<string, unknown> = {};
    for (const [field, type] of Object.entries<FieldType>(fields)) {
      if (typeof value[field] !== type) return null;
      picked[field] = value[field];
    }
    return picked as T;
  };
  const file = {
    write(dataDir: string, info: T) {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      const shown = pick(info as Record<string, unknown>);
      writeFileAtomicSync(join(dataDir, name), (append) => append(`${JSON.stringify(shown, null, 2)}\n`));
    },
    remove(dataDir: string, pid: number = process.pid) {
      const current = file.read(dataDir);
      if (current === null || current.pid === pid) rmSync(join(dataDir, name), { force: true });
    },
    read(dataDir: string): T | null {
      let value: unknown;
      try {
        value = JSON.parse(readFileSync(join(dataDir, name), 'utf8'));
      } catch {
        return null;
      }
      return typeof value === 'object' && value !== null ? pick(value as Record<string, unknown>) : null;
    },
    keep(dataDir: string, info: T, periodMs = INSTANCE_FILE_REFRESH_MS) {
      const wanted = JSON.stringify(pick(info as Record<string, unknown>));
      const timer = setInterval(() => {
        if (JSON.stringify(file.read(dataDir)) === wanted) return;
        try {
          file.write(dataDir, info);
        } catch {
          // A disk that refuses now: tried again next time.
        }
      }, periodMs);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
  return file;
}
