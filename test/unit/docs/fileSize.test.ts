/**
 * Files stay small and single-purpose (docs/architecture.md, "Layers"): no source file of the app, the
 * bench or the lint config is over 400 lines. A file that grows past that splits by job, as store/ did.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAX_LINES = 400;
const SOURCE = /\.(ts|vue|js|mjs|css)$/;

/** The tracked source files under the given folders (git knows which are ours: no build output). */
function sourceFiles(folders: readonly string[]): string[] {
  const listed = execFileSync('git', ['ls-files', '--', ...folders], { cwd: ROOT, encoding: 'utf8' });
  return listed.split('\n').filter((file) => SOURCE.test(file));
}

const lineCount = (file: string): number => readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1;

describe('source files', () => {
  it(`are at most ${MAX_LINES} lines each`, () => {
    const files = sourceFiles([
      'electron',
      'renderer',
      'shared',
      'bench',
      'scripts',
      'tools',
      'eslint.config.js',
    ]);
    expect(files.length).toBeGreaterThan(300);
    const over = files
      .map((file) => ({ file, lines: lineCount(file) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(over).toEqual([]);
  });
});
