/**
 * `serve`: the engine without a window — the local API on 127.0.0.1, the sync loop of every enabled
 * source, `runtime.json` for scripts, until SIGINT/SIGTERM; then stop the sync (a commit in progress
 * rolls back), persist, remove the runtime file and exit 0 (docs/architecture.md#the-cli).
 */
import { Command } from 'commander';
import { DEFAULT_RATE_LIMIT } from '../../api/rateLimit';
import { INTERVAL_LIMITS } from '../../../shared/intervals';
import type { CliIo } from '../io';
import { dataDirOption, integerOption } from '../options';

export interface ServeOptions {
  dataDir?: string;
  port?: number;
  demo?: boolean;
  ui?: boolean;
  rateLimit: number;
  pollSeconds?: number;
  crawlMinutes?: number;
  onFailed?: string;
  /** `team serve`: also the team server, its database PostgreSQL at `database` or else embedded. */
  team?: { database?: string; listen?: { address: string; hostNames: string[] } };
}

export function serveCommand(io: CliIo): Command {
  return withServeOptions(
    new Command('serve').description(
      'run the engine without a window: the local v2 API and the sync loop, until Ctrl+C',
    ),
  ).action(async (options: ServeOptions) => (await import('./serveRun')).serve(options, io));
}

/** The options `serve` and `team serve` share. */
export function withServeOptions(command: Command): Command {
  return command
    .addOption(dataDirOption())
    .option(
      '--port <n>',
      'port on 127.0.0.1 (0 picks a free one; default: the stored setting, 47800)',
      integerOption(0, 65535),
    )
    .option('--demo', 'with no sources configured, mirror a live simulated remote org (and print a key)')
    .option('--ui', 'also serve the window as a web UI on the same port (prints its one-time link)')
    .option(
      '--rate-limit <n>',
      'requests per second per key (bursts of twice as many)',
      integerOption(1, 1_000_000),
      DEFAULT_RATE_LIMIT.perSecond,
    )
    .option(
      '--poll-seconds <n>',
      'fast poll interval (default 60)',
      integerOption(...INTERVAL_LIMITS.pollSeconds),
    )
    .option(
      '--crawl-minutes <n>',
      'full crawl interval (default 15)',
      integerOption(...INTERVAL_LIMITS.crawlMinutes),
    )
    .option(
      '--on-failed <command>',
      'run COMMAND (through the shell) for each alert, reminder and contact notice, with it as JSON on stdin',
    );
}
