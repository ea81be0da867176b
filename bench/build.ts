/**
 * The project's build (`npm run build`) as the figures that measure it need it: made again when it is
 * missing or older than its sources, so a figure never measures an old build without saying so.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './children';

/** The newest modification time under `dir` (ms), 0 when it does not exist. */
export function newestIn(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((newest, entry) => Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

/** Whether `file` (in the project) is missing or older than any file under `sources`. */
export function builtBefore(file: string, sources: readonly string[]): boolean {
  const path = join(PROJECT_ROOT, file);
  if (!existsSync(path)) return true;
  const built = statSync(path).mtimeMs;
  return sources.some((dir) => newestIn(join(PROJECT_ROOT, dir)) > built);
}

export interface Built {
  /** What the build is for, in the log: "the renderer", "the CLI". */
  what: string;
  stale(): boolean;
  /** Whether an earlier build is there to measure when the sources do not build now. */
  exists(): boolean;
}

export function ensureBuilt(built: Built, log: (line: string) => void): void {
  if (!built.stale()) return;
  log(`  building ${built.what} (npm run build: missing or older than its sources)…`);
  try {
    execFileSync(
      process.execPath,
      [join(PROJECT_ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'],
      { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
  } catch (error) {
    // Sources being edited may not build: an earlier build still measures what it holds.
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    if (!built.exists())
      throw new Error(`${built.what} does not build: ${stderr.split('\n').slice(-3).join(' ')}`);
    log(`  ${built.what} does not build now (${stderr.split('\n').at(-1)}); measuring the last build`);
  }
}
