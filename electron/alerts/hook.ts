/**
 * `serve --on-failed CMD` (headless alerts): CMD runs through the shell once per announcement, with the
 * announcement as one line of JSON on stdin — a pager, a chat webhook, a script. Hooks run one at a
 * time in order (a burst never forks a crowd), each for at most `timeoutMs`; a failing hook is reported
 * and never stops the engine. The run itself is a command hook's (routes/command.ts), with the shell.
 */
import { type CommandResult, commandFailure, runCommand } from '../routes/command';
import type { Announcement } from './types';

export const HOOK_TIMEOUT_MS = 30_000;

export type HookResult = CommandResult;

/** What went wrong with a run, in words with the last line of its stderr; null when it succeeded. */
export const hookFailure = (result: HookResult): string | null => commandFailure(result);

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
    return runCommand(
      {
        command: this.command,
        args: [],
        shell: true,
        timeoutMs: this.options.timeoutMs ?? HOOK_TIMEOUT_MS,
        env: this.options.env,
        cwd: this.options.cwd,
      },
      `${JSON.stringify(announcement)}\n`,
    );
  }
}
