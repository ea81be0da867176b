/**
 * Vitest global setup: the browser tests serve the built renderer (out/renderer) and the whole-app test
 * runs the built main bundle with its preload (out/main, out/preload), so build all three when one is
 * missing or older than the sources (CI builds before testing; this keeps local runs honest).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const BUILT = ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html'];
const SOURCES = ['electron', 'shared', 'renderer'];

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

export default function setup(): void {
  // For working on the tests against a build made another way.
  if (process.env.DH_USE_BUILT_RENDERER === '1') return;
  const sources = Math.max(...SOURCES.map((dir) => newest(join(ROOT, dir))));
  const fresh = BUILT.every((file) => {
    const path = join(ROOT, file);
    return existsSync(path) && statSync(path).mtimeMs >= sources;
  });
  if (fresh) return;
  execFileSync(process.execPath, [join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}
