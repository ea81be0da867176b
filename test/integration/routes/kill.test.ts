/**
 * At most once across a kill (docs/decisions.md "Routes: at most once (issue 27)"): a process delivering
 * to a real loopback receiver is killed with SIGKILL while the receiver holds its request. On restart the
 * row it was sending is dead, "outcome unknown", and never sent again; the row waiting behind it goes out
 * once; a further restart sends nothing.
 */
import { afterEach, expect, it } from 'vitest';
import { Store } from '../../../electron/store/database';
import { OUTCOME_UNKNOWN_AT_START } from '../../../electron/routes/deliverer';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { killChildren, spawnScript } from '../../helpers/process';
import { type Receiver, startReceiver } from '../../helpers/receiver';

const SCRIPT = 'test/helpers/route-deliverer.ts';
let receiver: Receiver | undefined;

afterEach(async () => {
  killChildren();
  await receiver?.close();
  receiver = undefined;
  removeTempDirs();
});

it('a delivery cut off by SIGKILL is dead on restart, never sent twice; the one behind it goes out once', async () => {
  // The first request for d-1 gets no answer: the process is killed while it waits.
  receiver = await startReceiver((request) =>
    request.json?.notificationId === 'failed:d-1' ? 'hang' : { status: 200 },
  );
  const dataDir = tempDir('dh-routes-kill-');

  const first = spawnScript(SCRIPT, [dataDir, receiver.url]);
  await receiver.received(1);
  first.child.kill('SIGKILL');
  await first.exited;
  // d-2 waited behind d-1 in the route's lane: nothing of it left the killed process.
  expect(receiver.requests.map((request) => request.json?.notificationId)).toEqual(['failed:d-1']);

  const second = spawnScript(SCRIPT, [dataDir, receiver.url, '--drain']);
  expect(await second.exited, second.stderr()).toBe(0);
  expect(second.stdout().trim().split('\n')).toEqual([
    'abandoned failed:d-1',
    'started',
    'settled failed:d-2 sent',
  ]);

  const third = spawnScript(SCRIPT, [dataDir, receiver.url, '--drain']);
  expect(await third.exited, third.stderr()).toBe(0);
  expect(third.stdout()).toBe('started\n');

  expect(receiver.requests.map((request) => request.json?.notificationId)).toEqual([
    'failed:d-1',
    'failed:d-2',
  ]);
  const store = await Store.open({ dataDir });
  try {
    expect(
      store.all(
        'SELECT notification_id, state, attempts, last_error FROM route_outbox ORDER BY notification_id',
      ),
    ).toEqual([
      { notification_id: 'failed:d-1', state: 'dead', attempts: 1, last_error: OUTCOME_UNKNOWN_AT_START },
      { notification_id: 'failed:d-2', state: 'sent', attempts: 1, last_error: null },
    ]);
  } finally {
    await store.close();
  }
}, 60_000);
