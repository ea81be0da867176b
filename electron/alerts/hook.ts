/**
 * `serve --on-failed CMD` (headless alerts): CMD runs through the shell once per announcement, with the
 * announcement as one line of JSON on stdin — a pager, a chat webhook, a script. Hooks run one at a
 * time in order (a burst never forks a crowd), each for at most `timeoutMs`; a failing hook is reported
 * and never stops the engine.
 */
import { spawn } from 'node:child_process';
import type { Announcement } from './types';

export const HOOK_TIMEOUT_MS = 30_000;
/** What of a failing hook's stderr is kept for the log. */
const STDERR_TAIL = 2048;

export interface HookResult {
  /** Exit code, or null when it was killed (`signal`) or could not start (`error`). */
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  error: string | null;
  stderr: string;
}

/** What went wrong with a run, in words with the last line of its stderr; null when it succeeded. */
export function hookFailure(result: HookResult): string | null {
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

export interface HookOptions {
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  onResult?: (announcement: Announcement, result: HookResult) => void;
}

export class AnnouncementHook {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly command: string,
    private readonly options: HookOptions = {},
  ) {}

  /** Queues a run for the announcement; resolves when it has run. */
  run(announcement: Announcement): Promise<HookResult> {
    const next = this.queue.then(() => this.spawnOnce(announcement));
    this.queue = next.catch(() => undefined);
    return next.then((result) => {
      this.options.onResult?.(announcement, result);
      return result;
    });
  }

  /** Resolves when every queued run has finished. */
  idle(): Promise<void> {
    return this.queue.then(() => undefined);
  }

  private spawnOnce(announcement: Announcement): Promise<HookResult> {
    return new Promise((resolve) => {
      const posix = process.platform !== 'win32';
      const child = spawn(this.command, {
        shell: true,
        stdio: ['pipe', 'ignore', 'pipe'],
        env: this.options.env ?? process.env,
        cwd: this.options.cwd,
        // Its own process group on POSIX, so a timeout kills the command the shell started too.
        detached: posix,
        windowsHide: true,
      });
      let stderr = '';
      let timedOut = false;
      let settled = false;
      const finish = (result: Omit<HookResult, 'stderr' | 'timedOut'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, timedOut, stderr: stderr.slice(-STDERR_TAIL) });
      };
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          if (posix && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
          else child.kill('SIGKILL');
        } catch {
          // Already gone.
        }
      }, this.options.timeoutMs ?? HOOK_TIMEOUT_MS);
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-STDERR_TAIL);
      });
      child.on('error', (error) => finish({ code: null, signal: null, error: error.message }));
      child.on('close', (code, signal) => finish({ code, signal, error: null }));
      // A hook that does not read its stdin must not fail the run (EPIPE).
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(`${JSON.stringify(announcement)}\n`);
    });
  }
}
