/** Runs CLI commands in-process with captured output and a pinned clock, and temp data dirs. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from '../../electron/cli/io';
import { runCli } from '../../electron/cli/program';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** URLs the command opened in the browser (`ui --open`). */
  opened: string[];
}

export async function cli(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
  now = new Date('2026-11-21T04:41:00.000Z'),
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const opened: string[] = [];
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env,
    now: () => now,
    stopRequested: () => Promise.resolve('test'),
    openUrl: async (url) => void opened.push(url),
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr, opened };
}

const dirs: string[] = [];

export function tempDir(prefix = 'dh-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
