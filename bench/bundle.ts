/**
 * The CLI and the benchmark's engine process as plain JavaScript, bundled like `npm run build` does
 * (our code in one file each, packages left as imports), so cold start and memory are measured without
 * tsx compiling TypeScript at startup. The bundles live in a temp folder under bench/.bench-data/
 * (git-ignored), where node_modules resolve.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './children';
import { makeTempDir, trackTempDir } from './cleanup';

export interface Bundles {
  /** `electron/cli/main.ts`: the `dataset-health` command. */
  cli: string;
  /** `bench/engineProcess.ts`. */
  engine: string;
}

export async function bundle(): Promise<Bundles> {
  // esbuild comes with tsx and vite (not a direct dependency): loaded here so its absence skips only this.
  const { build, stop } = await import('esbuild');
  const parent = join(PROJECT_ROOT, 'bench', '.bench-data');
  if (!existsSync(parent)) trackTempDir(parent);
  const outdir = makeTempDir('bundles-', parent);
  await build({
    entryPoints: {
      cli: join(PROJECT_ROOT, 'electron', 'cli', 'main.ts'),
      engine: join(PROJECT_ROOT, 'bench', 'engineProcess.ts'),
    },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  // esbuild keeps a service process for further builds: there are none.
  await stop();
  return { cli: join(outdir, 'cli.mjs'), engine: join(outdir, 'engine.mjs') };
}
