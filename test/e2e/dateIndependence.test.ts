/**
 * The suite does not depend on the date it runs on: the browser tests whose data is made at a fixed
 * instant (Reliability's 7/30/90-day windows; overdue since the last sync; Handoff's scripted shift on
 * the real clock) pass with the machine's clock a year ahead — every process of that run (Vitest,
 * `serve`, Chromium) under libfaketime (Debian's `faketime`, which CI installs). Fixed-date data meets a
 * test clock (test/helpers/testClock.ts), never the machine's.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
// Upcoming's data is made relative to the run's now: a year ahead changes nothing there to prove.
const FILES = [
  'test/e2e/ui/reliability.test.ts',
  'test/e2e/ui/overdue.test.ts',
  'test/e2e/ui/handoff.test.ts',
];

interface Run {
  code: number | null;
  output: string;
}

/** Runs `command` to its end, stdout and stderr together. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('a year from now', () => {
  it('the browser tests of time-bound views pass with the machine clock a year ahead', async () => {
    // This run's own Vitest variables would make the inner run take itself for one of our workers.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')),
    );
    const probe = await run(
      'faketime',
      ['-f', '+365d', process.execPath, '-p', 'new Date().getUTCFullYear()'],
      env,
    ).catch((error: NodeJS.ErrnoException) => {
      throw new Error(
        `faketime is needed for this test (${error.code ?? error.message}): apt-get install faketime`,
      );
    });
    expect(Number(probe.output), 'faketime moves the clock a year ahead').toBe(
      new Date().getUTCFullYear() + 1,
    );
    const inner = await run(
      'faketime',
      ['-f', '+365d', process.execPath, VITEST, 'run', '--project', 'node', '--reporter', 'dot', ...FILES],
      env,
    );
    expect(inner.code, inner.output.slice(-6000)).toBe(0);
    // eslint-disable-next-line no-control-regex
    const summary = inner.output.replace(/\u001b\[[0-9;]*m/g, '');
    expect(summary).toMatch(new RegExp(`Test Files\\s+${FILES.length} passed \\(${FILES.length}\\)`));
  }, 600_000);
});
