/**
 * `simulate-remote`: a live, changing remote org on loopback for trying the sync (docs/architecture.md#the-cli). It
 * serves the remote v2 endpoints until SIGINT/SIGTERM, then closes and exits 0.
 */
import { randomBytes } from 'node:crypto';
import { Command } from 'commander';
import { DEFAULT_FAIL_RATE } from '../../demo/plan';
import { createSimClock } from '../../demo/remote/clock';
import { DEFAULT_SIM_ORG_ID } from '../../demo/remote/org';
import { DEFAULT_SIMULATOR_PORT, startRemoteSimulator } from '../../demo/remote/server';
// The variable `sync` reads the remote key from, so one export line serves both commands.
import { REMOTE_KEY_ENV } from '../../sync/secrets';
import { CliError, type CliIo } from '../io';
import { floatOption, integerOption } from '../options';

interface SimulateOptions {
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
    .action((options: SimulateOptions) => simulate(options, io));
}

async function simulate(options: SimulateOptions, io: CliIo): Promise<void> {
  const fromEnv = io.env[REMOTE_KEY_ENV];
  const apiKey = fromEnv || `dhr_${randomBytes(24).toString('base64url')}`;
  let simulator;
  try {
    simulator = await startRemoteSimulator({
      port: options.port,
      datasets: options.datasets,
      seed: options.seed,
      failRate: options.failRate,
      latencyMs: options.latency,
      errorRate: options.errorRate,
      clock: createSimClock({ now: () => io.now().getTime(), speed: options.speed }),
      apiKey,
    });
  } catch (error) {
    if (error instanceof Error && /is in use/.test(error.message)) throw new CliError(error.message);
    throw error;
  }
  io.stdout(`Remote simulator listening on ${simulator.url}\n`);
  const extras = [
    options.latency > 0 ? `latency ${options.latency} ms` : '',
    options.errorRate > 0 ? `error rate ${options.errorRate}` : '',
  ].filter(Boolean);
  io.stderr(
    [
      `Org ${DEFAULT_SIM_ORG_ID}: ${options.datasets} datasets (seed ${options.seed}, fail rate ${options.failRate}), ` +
        `clock at ${options.speed}× real time${extras.length ? `, ${extras.join(', ')}` : ''}`,
      // A key from the environment is the user's secret: say where it came from, never echo it.
      fromEnv
        ? `API key: the value of $${REMOTE_KEY_ENV}`
        : `API key (generated for this run; paste into the shell that runs the sync):\n  export ${REMOTE_KEY_ENV}=${apiKey}`,
      `Try: dataset-health sync --once --org ORG --remote ${simulator.url}`,
      'Ctrl+C stops the simulator.',
      '',
    ].join('\n'),
  );
  const signal = await io.stopRequested();
  io.stderr(`${signal}: stopping…\n`);
  await simulator.close();
}
