/**
 * Vitest global setup: the browser tests serve the built renderer (out/renderer), so build it when it
 * is missing or older than the sources (CI builds before testing; this keeps local runs honest).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

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
  const built = join(ROOT, 'out/renderer/index.html');
  const sources = Math.max(newest(join(ROOT, 'renderer')), newest(join(ROOT, 'shared')));
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  execFileSync(process.execPath, [join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}
