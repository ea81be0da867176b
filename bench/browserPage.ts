/**
 * What the bench's browser figures share: the built renderer (built when it is missing or older than its
 * sources, so a view added since the last build is measured as it is now), the page's globals as the
 * timing scripts see them, and how many rounds each figure takes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { findRendererDir } from '../electron/rpc/rendererDir';
import { PROJECT_ROOT } from './children';

/** The newest modification time under `dir` (ms), 0 when it does not exist. */
function newestIn(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((newest, entry) => Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

/** Whether the built renderer is missing or older than its sources (a view added since the last build). */
function rendererStale(): boolean {
  try {
    const built = statSync(join(findRendererDir(), 'index.html')).mtimeMs;
    return ['renderer/src', 'shared'].some((dir) => newestIn(join(PROJECT_ROOT, dir)) > built);
  } catch {
    return true;
  }
}

export function ensureRendererBuilt(log: (line: string) => void): void {
  if (!rendererStale()) return;
  log('  building the renderer (npm run build: missing or older than its sources)…');
  try {
    execFileSync(
      process.execPath,
      [join(PROJECT_ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'],
      { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
  } catch (error) {
    // Sources being edited may not build: an earlier build still measures what it holds.
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    try {
      findRendererDir();
    } catch {
      throw new Error(`the renderer does not build: ${stderr.split('\n').slice(-3).join(' ')}`);
    }
    log(`  the renderer does not build now (${stderr.split('\n').at(-1)}); measuring the last build`);
  }
}

export type PageElement = { getAttribute(name: string): string | null; click(): void } | null;
export type PageGlobals = {
  document: { body: unknown; querySelector(selector: string): PageElement; title: string };
  MutationObserver: new (callback: () => void) => {
    observe(target: unknown, options: object): void;
    disconnect(): void;
  };
  requestAnimationFrame(callback: () => void): void;
};

/** Rounds of each figure (after one warm-up); the bench reports their p50. */
export const ROUNDS = 9;
