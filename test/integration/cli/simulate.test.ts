/** `simulate-remote` in-process: options, the generated key line, and stopping cleanly. */
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli';
import { startRemoteSimulator, type RemoteSimulator } from '../../../electron/demo/remote/server';

const running: RemoteSimulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((simulator) => simulator.close()));
});

describe('simulate-remote', () => {
  it('prints its URL on stdout and a ready-to-paste key line on stderr, then stops when asked', async () => {
    // The test io asks to stop at once: the simulator starts, reports and closes.
    const run = await cli(['simulate-remote', '--port', '0', '--datasets', '10', '--fail-rate', '0.2']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Remote simulator listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    expect(run.stderr).toMatch(/^ {2}export DATASET_HEALTH_REMOTE_KEY=dhr_[A-Za-z0-9_-]{32}$/m);
    expect(run.stderr).toMatch(/10 datasets \(seed 1, fail rate 0\.2\)/);
  });

  it('uses the key from the environment without printing it', async () => {
    const run = await cli(['simulate-remote', '--port', '0', '--datasets', '5'], {
      DATASET_HEALTH_REMOTE_KEY: 'secret-remote-key',
    });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('secret-remote-key');
    expect(run.stderr).toContain('$DATASET_HEALTH_REMOTE_KEY');
  });

  it.each([
    [['--fail-rate', '1.5']],
    [['--error-rate', '-0.1']],
    [['--speed', '0']],
    [['--latency', 'soon']],
    [['--port', '70000']],
  ])('usage error %j → exit 2', async (args) => {
    const run = await cli(['simulate-remote', ...args]);
    expect(run.code).toBe(2);
  });

  it('a port in use → exit 1 with a one-line reason', async () => {
    const busy = await startRemoteSimulator({ port: 0, datasets: 1, seed: 1, apiKey: 'k' });
    running.push(busy);
    const run = await cli(['simulate-remote', '--port', String(busy.port)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `dataset-health: port ${busy.port} is in use on 127.0.0.1; pass --port 0 to pick a free one\n`,
    );
  });
});
