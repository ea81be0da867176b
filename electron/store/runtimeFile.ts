/**
 * `<dataDir>/runtime.json` (DESIGN.md §7): while `serve` or the app runs it says where the local API
 * listens, so scripts find it when the port is not the default. Synchronous on purpose: it is tiny,
 * and shutdown paths remove it without awaiting anything.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from './atomicFile';

export const RUNTIME_FILE = 'runtime.json';

export interface RuntimeInfo {
  /** e.g. `http://127.0.0.1:47800` */
  apiUrl: string;
  pid: number;
  /** ISO 8601. */
  startedAt: string;
}

/** Writes `runtime.json` atomically (temp file, fsync, rename), readable by the owner only. */
export function writeRuntimeFile(dataDir: string, info: RuntimeInfo): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const { apiUrl, pid, startedAt } = info;
  writeFileAtomicSync(join(dataDir, RUNTIME_FILE), (append) =>
    append(`${JSON.stringify({ apiUrl, pid, startedAt }, null, 2)}\n`),
  );
}

/**
 * Removes `runtime.json` if it describes process `pid` (default: this one), so an instance that failed
 * to start never removes the file of the one that runs. Missing file: nothing to do.
 */
export function removeRuntimeFile(dataDir: string, pid: number = process.pid): void {
  const current = readRuntimeFile(dataDir);
  if (current === null || current.pid === pid) rmSync(join(dataDir, RUNTIME_FILE), { force: true });
}

/** The contents of `runtime.json`, or null when it is missing or not a runtime file. */
export function readRuntimeFile(dataDir: string): RuntimeInfo | null {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(join(dataDir, RUNTIME_FILE), 'utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { apiUrl, pid, startedAt } = value as Record<string, unknown>;
  if (typeof apiUrl !== 'string' || typeof pid !== 'number' || typeof startedAt !== 'string') return null;
  return { apiUrl, pid, startedAt };
}
