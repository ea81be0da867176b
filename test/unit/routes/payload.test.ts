/**
 * What a route is sent (docs/api.md "Route payload"): the caller's payload with a Slack-compatible
 * `text` and the ids first; and enqueuing, which leaves the tray out and a notification once per route.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../../electron/store/database';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import { dueOutboxRows } from '../../../electron/store/tables/routeOutbox';
import { enqueueRouteDeliveries, routeDocument, slackText } from '../../../electron/routes/payload';

const NOW = new Date('2026-11-21T12:00:00.000Z');

describe('route payload', () => {
  it.each([
    ['FAILED: Trades', 'Normalize failed: E_SCHEMA', 'FAILED: Trades — Normalize failed: E_SCHEMA'],
    ['Lost contact with Prod', '', 'Lost contact with Prod'],
    ['FAILED: <Rates & FX>', 'see <https://x>', 'FAILED: &lt;Rates &amp; FX&gt; — see &lt;https://x&gt;'],
  ])('slack text of %j and %j', (title, body, text) => {
    expect(slackText(title, body)).toBe(text);
  });

  it('puts text and the ids first, then the payload; its own fields win', () => {
    const payload = {
      title: 'FAILED: Trades',
      body: 'Ingest failed',
      kind: 'failed',
      text: 'mine',
      orgId: 'x',
    };
    const document = routeDocument(
      { orgId: 'acme', notificationId: 'failed:d-1', routeId: 'channel' },
      JSON.stringify(payload),
    );
    expect(document).toBe(
      JSON.stringify({
        text: 'FAILED: Trades — Ingest failed',
        notificationId: 'failed:d-1',
        orgId: 'acme',
        routeId: 'channel',
        title: 'FAILED: Trades',
        body: 'Ingest failed',
        kind: 'failed',
      }),
    );
  });
});

describe('enqueueRouteDeliveries', () => {
  let store: Store;
  beforeEach(async () => {
    store = await Store.open({ dataDir: null });
    ensureOrg(store, 'acme', NOW);
  });
  afterEach(() => store.close());

  it('adds one delivery per route but the tray, once', () => {
    const notification = {
      orgId: 'acme',
      notificationId: 'failed:d-1',
      routeIds: ['tray', 'channel', 'pager'],
      payload: { title: 'FAILED: Trades', body: '' },
    };
    expect(store.transaction(() => enqueueRouteDeliveries(store, notification, NOW))).toBe(2);
    expect(enqueueRouteDeliveries(store, notification, NOW)).toBe(0);
    expect(dueOutboxRows(store, NOW, 10).map((row) => row.routeId)).toEqual(['channel', 'pager']);
  });
});
