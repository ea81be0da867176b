/**
 * `simulate-remote`: a live, changing remote org on loopback for trying the sync (docs/architecture.md#the-cli). It
 * serves the remote v2 endpoints until SIGINT/SIGTERM, then closes and exits 0.
 */
import { Command } from 'commander';
import { DEFAULT_FAIL_RATE, DEFAULT_SIMULATOR_PORT } from '../../demo/defaults';
import type { CliIo } from '../io';
import { floatOption, integerOption } from '../options';

export interface SimulateOptions {
  port: number;
  datasets: number;
  seed: number;
  failRate: number;
  latency: number;
  errorRate: number;
  speed: number;
}

export function simulateCommand(io: CliIo): Command {
  return new Command('simulate-remote')
    .description('serve a simulated remote org on 127.0.0.1 that changes as time passes, until Ctrl+C')
    .option(
      '--port <n>',
      'port on 127.0.0.1 (0 picks a free one)',
      integerOption(0, 65535),
      DEFAULT_SIMULATOR_PORT,
    )
    .option('--datasets <n>', 'how many datasets', integerOption(1, 200_000), 500)
    .option('--seed <s>', 'random seed: the same seed gives the same org', integerOption(0, 2 ** 31 - 1), 1)
    .option('--fail-rate <r>', 'share of deliveries that fail (0–1)', floatOption(0, 1), DEFAULT_FAIL_RATE)
    .option('--latency <ms>', 'delay of every answer in milliseconds', integerOption(0, 600_000), 0)
    .option('--error-rate <r>', 'share of requests answered 503/500/429 (0–1)', floatOption(0, 1), 0)
    .option('--speed <x>', 'simulated seconds per real second', floatOption(0.001, 1_000_000), 1)
    .action(async (options: SimulateOptions) => (await import('./simulateRun')).simulate(options, io));
}
