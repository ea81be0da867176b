/**
 * `<dataDir>/control.json` (DESIGN.md §3): while `serve` or the app holds the data directory, it says
 * where the CLI hands its work and the secret that proves the CLI runs as the directory's owner (the
 * file is readable by the owner only, in an owner-only folder). Removed on exit; a file left by a dead
 * process is ignored (its pid no longer holds the directory's lock).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from './atomicFile';

export const CONTROL_FILE = 'control.json';

export interface ControlInfo {
  /** The local API's base URL, e.g. `http://127.0.0.1:47800`. */
  url: string;
  pid: number;
  /** `serve` or `app`. */
  purpose: string;
  secret: string;
}

export const newControlSecret = (): string => randomBytes(32).toString('base64url');

export function writeControlFile(dataDir: string, info: ControlInfo): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileAtomicSync(join(dataDir, CONTROL_FILE), (append) => append(`${JSON.stringify(info, null, 2)}\n`));
}

/** Removes control.json if it is this process's (an instance that failed to start leaves the live one's). */
export function removeControlFile(dataDir: string, pid: number = process.pid): void {
  const current = readControlFile(dataDir);
  if (current === null || current.pid === pid) rmSync(join(dataDir, CONTROL_FILE), { force: true });
}

/** The contents of control.json, or null when it is missing or not a control file. */
export function readControlFile(dataDir: string): ControlInfo | null {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(join(dataDir, CONTROL_FILE), 'utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { url, pid, purpose, secret } = value as Record<string, unknown>;
  if (
    typeof url !== 'string' ||
    typeof pid !== 'number' ||
    typeof purpose !== 'string' ||
    typeof secret !== 'string'
  )
    return null;
  return { url, pid, purpose, secret };
}
