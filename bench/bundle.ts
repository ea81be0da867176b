/**
 * The CLI as plain JavaScript, bundled like `npm run build` does (our code in one file, packages left
 * as imports), so cold start can also be measured without tsx compiling TypeScript at startup. The
 * bundle lives in a temp folder under bench/.bench-data/ (git-ignored), where node_modules resolve.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './children';
import { makeTempDir, trackTempDir } from './cleanup';

export async function bundleCli(): Promise<string> {
  // esbuild comes with tsx and vite (not a direct dependency): loaded here so its absence skips only this.
  const { build, stop } = await import('esbuild');
  const parent = join(PROJECT_ROOT, 'bench', '.bench-data');
  if (!existsSync(parent)) trackTempDir(parent);
  const outfile = join(makeTempDir('cli-', parent), 'cli.mjs');
  await build({
    entryPoints: [join(PROJECT_ROOT, 'electron', 'cli', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  // esbuild keeps a service process for further builds: there are none.
  await stop();
  return outfile;
}
