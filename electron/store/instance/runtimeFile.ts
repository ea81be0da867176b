/**
 * `<dataDir>/runtime.json` (docs/architecture.md#hand-over-to-a-running-instance, docs/architecture.md#the-cli): while `serve` or the app runs, it says where the local
 * API listens, so scripts find it when the port is not the default. One of the instance's files
 * (instanceFile.ts).
 */
import { instanceFile } from './instanceFile';

export const RUNTIME_FILE = 'runtime.json';

export interface RuntimeInfo {
  /** e.g. `http://127.0.0.1:47800` */
  apiUrl: string;
  pid: number;
  /** ISO 8601. */
  startedAt: string;
}

/**
 * `runtime.json` written atomically (temp file, fsync, rename) and readable by the owner only; removed
 * only if it describes process `pid` (default: this one); read as null when missing or not a runtime file.
 */
export const {
  write: writeRuntimeFile,
  remove: removeRuntimeFile,
  read: readRuntimeFile,
} = instanceFile<RuntimeInfo>(RUNTIME_FILE, { apiUrl: 'string', pid: 'number', startedAt: 'string' });
