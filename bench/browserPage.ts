/**
 * What the bench's browser figures share: the built renderer (built when it is missing or older than its
 * sources, so a view added since the last build is measured as it is now), the page's globals as the
 * timing scripts see them, and how many rounds each figure takes.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { findRendererDir } from '../electron/rpc/rendererDir';
import { type Built, ensureBuilt, newestIn } from './build';
import { PROJECT_ROOT } from './children';

/** When the renderer was built (ms), null when it is not. */
function rendererBuiltAt(): number | null {
  try {
    return statSync(join(findRendererDir(), 'index.html')).mtimeMs;
  } catch {
    return null;
  }
}

/** The built renderer, made again when missing or older than its sources (a view added since the last build). */
const RENDERER_BUILD: Built = {
  what: 'the renderer',
  stale: () => {
    const built = rendererBuiltAt();
    return (
      built === null || ['renderer/src', 'shared'].some((dir) => newestIn(join(PROJECT_ROOT, dir)) > built)
    );
  },
  exists: () => rendererBuiltAt() !== null,
};

export function ensureRendererBuilt(log: (line: string) => void): void {
  ensureBuilt(RENDERER_BUILD, log);
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
