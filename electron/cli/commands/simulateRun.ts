/** The work of `simulate-remote` (commands/simulate.ts has its options), loaded when it runs. */
import { randomBytes } from 'node:crypto';
import { createSimClock } from '../../demo/remote/clock';
import { DEFAULT_SIM_ORG_ID } from '../../demo/remote/org';
import { startRemoteSimulator } from '../../demo/remote/server';
// The variable `sync` reads the remote key from, so one export line serves both commands.
import { REMOTE_KEY_ENV } from '../../sync/secrets';
import { CliError, type CliIo } from '../io';
import type { SimulateOptions } from './simulate';

export async function simulate(options: SimulateOptions, io: CliIo): Promise<void> {
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
