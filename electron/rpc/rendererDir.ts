/**
 * Where the built renderer is: `renderer/` or `out/renderer/` in this file's folder or one above it
 * (the bundled CLI lives in out/main/chunks, the sources in electron/rpc).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export class RendererNotBuiltError extends Error {}

export function findRendererDir(from = import.meta.dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    // A build has its bundles in assets/ (the source folder renderer/ has an index.html too).
    const found = ['out/renderer', 'renderer']
      .map((sub) => join(dir, sub))
      .find(
        (candidate) => existsSync(join(candidate, 'index.html')) && existsSync(join(candidate, 'assets')),
      );
    if (found) return found;
    if (dirname(dir) === dir) break;
  }
  throw new RendererNotBuiltError(
    'the web UI is not built: run `npm run build` first (it writes out/renderer)',
  );
}
