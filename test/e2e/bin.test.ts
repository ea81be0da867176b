/** The `dataset-health` bin entry runs the built CLI from any directory (after `npm run build`). */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/dataset-health.js', import.meta.url));
const built = existsSync(fileURLToPath(new URL('../../out/main/cli.js', import.meta.url)));

describe('bin/dataset-health.js', () => {
  // CI builds before testing; a plain `npm test` on an unbuilt checkout has nothing to run here.
  it.skipIf(!built)('prints help from another directory', () => {
    const help = execFileSync(process.execPath, [bin, '--help'], { cwd: tmpdir(), encoding: 'utf8' });
    expect(help).toMatch(/Usage: dataset-health/);
    expect(help).toMatch(/serve/);
  });
});
