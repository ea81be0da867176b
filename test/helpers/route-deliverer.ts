/**
 * Child process for test/integration/routes/kill.test.ts: a route deliverer on the store in `<dataDir>`.
 *
 *   node --import tsx test/helpers/route-deliverer.ts <dataDir> <webhookUrl> [--drain]
 *
 * A data directory without the org gets it, a webhook route `channel` to `<webhookUrl>`, and two
 * notifications for it (`failed:d-1`, `failed:d-2`). Then the deliverer starts; stdout gets
 * `abandoned <notificationId>` for each row it found `sending`, `started`, and `settled <notificationId>
 * <state>` as attempts end. It runs until killed, or with `--drain` delivers what is due, stops and exits.
 */
import { Store } from '../../electron/store/database';
import { ensureOrg, listOrgs } from '../../electron/store/tables/orgs';
import { saveRuleSet } from '../../electron/store/tables/ruleSets';
import { RouteDeliverer } from '../../electron/routes/deliverer';
import { enqueueRouteDeliveries } from '../../electron/routes/payload';

async function main(): Promise<void> {
  const [dataDir, url, flag] = process.argv.slice(2);
  if (!dataDir || !url) throw new Error('usage: route-deliverer.ts <dataDir> <webhookUrl> [--drain]');
  const store = await Store.open({ dataDir });
  const now = new Date();
  if (!listOrgs(store).some((org) => org.id === 'acme'))
    store.transaction(() => {
      ensureOrg(store, 'acme', now);
      saveRuleSet(
        store,
        'acme',
        {
          rules: [
            {
              id: 'all',
              name: 'All',
              enabled: true,
              event: 'failed',
              match: {},
              action: 'notify',
              routes: ['channel'],
            },
          ],
          routes: [
            { id: 'channel', kind: 'webhook', name: 'Channel', url, secretHeader: null, timeoutSeconds: 300 },
          ],
        },
        now,
      );
      for (const id of ['failed:d-1', 'failed:d-2'])
        enqueueRouteDeliveries(
          store,
          {
            orgId: 'acme',
            notificationId: id,
            routeIds: ['channel'],
            payload: { title: `FAILED: ${id}`, body: '' },
          },
          now,
        );
    });
  const deliverer = new RouteDeliverer({
    store,
    onSettled: (row) => console.log(`settled ${row.notificationId} ${row.state}`),
  });
  for (const row of await deliverer.start()) console.log(`abandoned ${row.notificationId}`);
  console.log('started');
  if (flag !== '--drain') return;
  await deliverer.drain();
  await deliverer.stop();
  await store.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
