/**
 * `rules dead-letters [--org] [--json]` and `rules send-again <id>` (docs/decisions.md "Routes: at most
 * once (issue 27)"): the deliveries given up, listed per org with their last error, one put back on its
 * way; alone on the data directory and handed to a running instance.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../../electron/store/database';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import {
  claimOutboxRow,
  dueOutboxRows,
  enqueueOutbox,
  settleOutboxRow,
} from '../../../electron/store/tables/routeOutbox';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { startInstance, stopInstances } from '../../helpers/instance';
import { startReceiver } from '../../helpers/receiver';
import { ruleOf } from '../../helpers/rules';
import { saveRuleSet } from '../../../electron/store/tables/ruleSets';

const NOW = new Date('2026-11-21T04:41:00.000Z');

afterEach(async () => {
  await stopInstances();
  removeTempDirs();
});

/** A data directory whose orgs each have one dead delivery to `channel` and one still pending. */
async function dataDirWithDeadLetters(orgs: string[]): Promise<string> {
  const dataDir = tempDir('dh-dead-letters-');
  const store = await Store.open({ dataDir, checkpoint: { openCheckpointDelayMs: 0 } });
  try {
    for (const org of orgs) {
      ensureOrg(store, org, NOW);
      const payload = (title: string) => JSON.stringify({ title, body: '' });
      enqueueOutbox(
        store,
        [
          {
            orgId: org,
            notificationId: 'failed:d-1',
            routeId: 'channel',
            payload: payload(`FAILED: ${org} one`),
          },
          {
            orgId: org,
            notificationId: 'failed:d-2',
            routeId: 'channel',
            payload: payload(`FAILED: ${org} two`),
          },
        ],
        NOW,
      );
      const [dead] = dueOutboxRows(store, NOW, 10).filter((row) => row.orgId === org);
      claimOutboxRow(store, dead!.id, NOW);
      settleOutboxRow(store, dead!.id, { state: 'dead', error: 'refused: answered 404 Not Found' }, NOW);
    }
  } finally {
    await store.close();
  }
  return dataDir;
}

const run = (dataDir: string, argv: string[]) => cli([...argv, '--data-dir', dataDir], {}, NOW);

describe('rules dead-letters and send-again, alone on the data directory', () => {
  it('lists the dead letters of every org, or of one, as a table or JSON', async () => {
    const dataDir = await dataDirWithDeadLetters(['acme', 'umbrella']);
    const table = await run(dataDir, ['rules', 'dead-letters']);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+ORG\s+ROUTE\s+NOTIFICATION\s+SENT\s+ATTEMPTS\s+GIVEN UP\s+LAST ERROR$/);
    const sentAt = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d/);
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/).slice(1, 6))).toEqual([
      ['umbrella', 'channel', 'FAILED: umbrella one', sentAt, '1'],
      ['acme', 'channel', 'FAILED: acme one', sentAt, '1'],
    ]);
    const json = await run(dataDir, ['rules', 'dead-letters', '--org', 'acme', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        id: expect.any(Number),
        orgId: 'acme',
        routeId: 'channel',
        notificationId: 'failed:d-1',
        title: 'FAILED: acme one',
        attempts: 1,
        lastError: 'refused: answered 404 Not Found',
        createdAt: NOW.toISOString(),
        diedAt: NOW.toISOString(),
      },
    ]);
    const unknown = await run(dataDir, ['rules', 'dead-letters', '--org', 'nobody']);
    expect(unknown.code).toBe(1);
  });

  it('sends a dead letter again once; an id that is not a dead letter is refused', async () => {
    const dataDir = await dataDirWithDeadLetters(['acme']);
    const [letter] = JSON.parse((await run(dataDir, ['rules', 'dead-letters', '--json'])).stdout) as {
      id: number;
    }[];
    const again = await run(dataDir, ['rules', 'send-again', String(letter!.id)]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe(
      'FAILED: acme one is on its way to channel of acme again: it goes out when the app or `serve` runs.\n',
    );
    const none = await run(dataDir, ['rules', 'dead-letters']);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/^No dead letters/);
    for (const id of [String(letter!.id), '999', 'x; rm -rf /'])
      expect(await run(dataDir, ['rules', 'send-again', id])).toMatchObject({
        code: 1,
        stderr: expect.stringContaining('no dead letter with id'),
      });
  });
});

describe('rules dead-letters and send-again, handed to a running instance', () => {
  it('lists and sends again through the instance holding the data directory, whose deliverer sends it', async () => {
    const receiver = await startReceiver(() => ({ status: 200 }));
    try {
      const dataDir = await dataDirWithDeadLetters(['acme']);
      // The org's rules name the channel: the running instance's deliverer sends to it.
      const store = await Store.open({ dataDir, checkpoint: { openCheckpointDelayMs: 0 } });
      saveRuleSet(
        store,
        'acme',
        {
          rules: [ruleOf('all', { routes: ['channel'] })],
          routes: [
            {
              id: 'channel',
              kind: 'webhook',
              name: 'Channel',
              url: receiver.url,
              secretHeader: null,
              timeoutSeconds: 10,
            },
          ],
        },
        NOW,
      );
      await store.close();
      const instance = await startInstance(dataDir, { now: () => NOW });
      const listed = await run(dataDir, ['rules', 'dead-letters', '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      const letters = JSON.parse(listed.stdout) as { id: number }[];
      expect(letters).toHaveLength(1);
      const again = await run(dataDir, ['rules', 'send-again', String(letters[0]!.id)]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toBe('FAILED: acme one is on its way to channel of acme again.\n');
      // The pending one went out when the instance started; the one sent again once it was woken.
      await receiver.received(2);
      await instance.stop();
      expect(receiver.requests.map((request) => request.json?.title).sort()).toEqual([
        'FAILED: acme one',
        'FAILED: acme two',
      ]);
      expect((await run(dataDir, ['rules', 'dead-letters', '--json'])).stdout).toBe('[]\n');
    } finally {
      await receiver.close();
    }
  });
});
