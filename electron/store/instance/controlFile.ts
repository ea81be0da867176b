/**
 * `<dataDir>/control.json` (docs/architecture.md#hand-over-to-a-running-instance): while `serve` or the app holds the data directory, it says
 * where the CLI hands its work and the secret that proves the CLI runs as the directory's owner (the
 * file is readable by the owner only, in an owner-only folder). Removed on exit; a file left by a dead
 * process is ignored (its pid no longer holds the directory's lock).
 */
import { randomBytes } from 'node:crypto';
import { instanceFile } from './instanceFile';

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

/** Written, removed, read, and kept as written while the instance runs (the CLI finds it by it). */
export const {
  write: writeControlFile,
  remove: removeControlFile,
  read: readControlFile,
  keep: keepControlFile,
} = instanceFile<ControlInfo>(CONTROL_FILE, {
  url: 'string',
  pid: 'number',
  purpose: 'string',
  secret: 'string',
});
