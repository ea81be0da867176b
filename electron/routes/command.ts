/**
 * Runs a command once with text on its stdin, within a timeout (docs/decisions.md "Routes: at most once
 * (issue 27)"): the program and its arguments as given, without a shell unless asked for, so nothing in
 * an argument (`;`, `$(…)`, quotes) is ever interpreted. `serve --on-failed CMD` (alerts/hook.ts) runs
 * its command line through here with the shell, a command hook route without one unless it says `shell`.
 */
import { spawn as nodeSpawn } from 'node:child_process';
import type { HookRoute } from '../../shared/rules';
import { type AttemptResult, type SpawnLike, type Timers, realTimers } from './attempt';

/** What of a failing command's stderr is kept for the log. */
const STDERR_TAIL = 2048;

export interface CommandSpec {
  /** The program; with `shell`, a whole shell line. */
  command: string;
  args: readonly string[];
  shell: boolean;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface CommandResult {
  /** Exit code, or null when it was killed (`signal`) or could not start (`error`). */
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  error: string | null;
  stderr: string;
}

export interface CommandDeps {
  spawn?: SpawnLike;
  timers?: Timers;
}

/** What went wrong with a run, in words with the last line of its stderr; null when it succeeded. */
export function commandFailure(result: CommandResult): string | null {
  if (result.code === 0) return null;
  const why = result.timedOut
    ? 'timed out'
    : result.error !== null
      ? `could not start: ${result.error}`
      : result.signal !== null
        ? `killed by ${result.signal}`
        : `exited with ${result.code}`;
  const lastLine = result.stderr.trim().split('\n').at(-1);
  return lastLine ? `${why}: ${lastLine}` : why;
}

/** Runs `spec` once with `input` on its stdin; resolves when it ended or was killed at its timeout. */
export function runCommand(spec: CommandSpec, input: string, deps: CommandDeps = {}): Promise<CommandResult> {
  const spawn = deps.spawn ?? nodeSpawn;
  const timers = deps.timers ?? realTimers;
  return new Promise((resolve) => {
    const posix = process.platform !== 'win32';
    let stderr = '';
    let timedOut = false;
    let settled = false;
    let child: ReturnType<SpawnLike>;
    try {
      child = spawn(spec.command, [...spec.args], {
        shell: spec.shell,
        stdio: ['pipe', 'ignore', 'pipe'],
        env: spec.env ?? process.env,
        cwd: spec.cwd,
        // Its own process group on POSIX, so a timeout kills what the command started too.
        detached: posix,
        windowsHide: true,
      });
    } catch (error) {
      // Refused before starting (an argument Node will not pass): nothing ran.
      resolve({ code: null, signal: null, error: (error as Error).message, timedOut, stderr });
      return;
    }
    const timer = timers.setTimeout(() => {
      timedOut = true;
      try {
        if (posix && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // Already gone.
      }
    }, spec.timeoutMs);
    const finish = (result: Omit<CommandResult, 'stderr' | 'timedOut'>) => {
      if (settled) return;
      settled = true;
      timers.clearTimeout(timer);
      resolve({ ...result, timedOut, stderr: stderr.slice(-STDERR_TAIL) });
    };
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    });
    child.on('error', (error) => finish({ code: null, signal: null, error: error.message }));
    child.on('close', (code, signal) => finish({ code, signal, error: null }));
    // A command that does not read its stdin must not fail the run (EPIPE).
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
}

/**
 * A command hook route: its command run with the route's JSON document on stdin. Exit 0 is sent; a
 * non-zero exit or a command that could not start surely did not do its work; killed at the timeout or
 * by a signal, it may have.
 */
export async function runHookRoute(
  route: HookRoute,
  document: string,
  deps: CommandDeps & { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<AttemptResult> {
  const result = await runCommand(
    {
      command: route.command,
      args: route.args,
      shell: route.shell,
      timeoutMs: route.timeoutSeconds * 1000,
      env: deps.env,
      cwd: deps.cwd,
    },
    `${document}\n`,
    deps,
  );
  const failure = commandFailure(result);
  if (failure === null) return { kind: 'sent' };
  if (result.timedOut) return { kind: 'unknown', error: `timed out after ${route.timeoutSeconds} s` };
  if (result.code === null && result.error === null) return { kind: 'unknown', error: failure };
  return { kind: 'failed', error: failure };
}
