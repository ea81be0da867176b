/**
 * Spawns the real CLI (`node --import tsx electron/cli/main.ts`), or a helper script, and tracks the
 * children to clean up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type TestClock, clockEnv } from './testClock';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const children = new Set<ChildProcess>();

export interface Spawned {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/**
 * The CLI as a child process; with `clock`, on the test's clock (`clockedCli.ts`) instead of the real
 * one, for data made at a fixed instant.
 */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}, clock?: TestClock): Spawned {
  return clock
    ? spawnScript('test/helpers/clockedCli.ts', args, { ...env, ...clockEnv(clock) })
    : spawnScript('electron/cli/main.ts', args, env);
}

/**
 * Runs a TypeScript file of the repository (path from its root) in a child process; with `stdin: 'pipe'`
 * the test writes to (or ends) `child.stdin`.
 */
export function spawnScript(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: { stdin?: 'ignore' | 'pipe' } = {},
): Spawned {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Waits until `read()` matches, or fails with what the process printed. */
export async function waitFor(
  read: () => string,
  pattern: RegExp,
  spawned: Spawned,
  timeoutMs = 20_000,
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(read());
    if (match) return match;
    if (spawned.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(
        `no ${pattern} (exit ${spawned.child.exitCode}); stdout: ${spawned.stdout()} stderr: ${spawned.stderr()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Resolves once `check()` is true, polling every few milliseconds; fails after `timeoutMs`, saying `what`. */
export async function until(
  check: () => boolean,
  what = 'the condition held',
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export function killChildren(): void {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
}
