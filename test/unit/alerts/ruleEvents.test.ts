/**
 * The rules about MISSING, late, recovered and lost contact, live (docs/decisions.md "Rule
 * notifications: one evaluator"): each cycle's status changes judged by the org's rules, one tray
 * notice per rule and event, recorded as sent before it is told; quiet hours quiet the tray, not the
 * record; a rule that sends only elsewhere keeps the tray quiet and says so on the failure's timeline.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RouteDeliverer } from '../../../electron/routes/deliverer';
import { Store } from '../../../electron/store/database';
import { ruleNotificationsSent } from '../../../electron/store/tables/ruleLog';
import { saveRuleSet } from '../../../electron/store/tables/ruleSets';
import { datasetTimeline } from '../../../electron/store/tables/timeline';
import type { Rule, RuleSet } from '../../../shared/rules';
import { ORG, alertsBench, putDataset, sourceState } from '../../helpers/alerts';
import { startReceiver } from '../../helpers/receiver';
import { ruleOf } from '../../helpers/rules';

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

async function benchWith(rules: Rule[], routes: RuleSet['routes'] = []) {
  const store = await Store.open({ dataDir: null });
  stores.push(store);
  const bench = alertsBench(store);
  for (const n of [1, 2, 3, 4]) putDataset(store, n, 'HEALTHY', `dlv-${n}a`);
  saveRuleSet(store, ORG, { rules, routes }, bench.clock.now);
  await bench.cycle({ firstSync: true });
  return bench;
}

const change = (n: number, from: string, to: string, deliveryId: string) => ({
  datasetId: `ds-${n}`,
  from,
  to,
  deliveryId,
});

const sent = (bench: { store: Store; clock: { now: Date } }) =>
  ruleNotificationsSent(bench.store, ORG, new Date(0), new Date(bench.clock.now.getTime() + 1)) as {
    title: string;
    action: string;
    event: string;
  }[];

describe('rules about more than new failures', () => {
  it('tells of a MISSING wave as one urgent notice, recorded as sent', async () => {
    const bench = await benchWith([
      ruleOf('missing', { name: 'Missing', event: 'missing', action: 'urgent' }),
    ]);
    putDataset(bench.store, 1, 'MISSING', 'dlv-1b');
    putDataset(bench.store, 2, 'MISSING', 'dlv-2b');
    const made = await bench.cycle({
      transitions: [change(1, 'HEALTHY', 'MISSING', 'dlv-1b'), change(2, 'HEALTHY', 'MISSING', 'dlv-2b')],
    });
    expect(made).toEqual([
      expect.objectContaining({
        kind: 'event',
        event: 'missing',
        urgent: true,
        title: '2 datasets MISSING',
        body: 'Dataset 1 and Dataset 2.',
        target: { view: 'triage', orgId: ORG },
        datasetIds: ['ds-1', 'ds-2'],
      }),
    ]);
    expect(sent(bench).map((n) => [n.title, n.action, n.event])).toEqual([
      ['2 datasets MISSING', 'urgent', 'missing'],
    ]);
  });

  it('tells of a delivery late by more than the rule says, and not of one less late', async () => {
    const bench = await benchWith([ruleOf('late', { name: 'Late', event: 'late', lateByMinutes: 30 })]);
    putDataset(bench.store, 1, 'DELIVERED_LATE', 'dlv-1b', { lateMinutes: 45 });
    putDataset(bench.store, 2, 'DELIVERED_LATE', 'dlv-2b', { lateMinutes: 10 });
    const made = await bench.cycle({
      transitions: [
        change(1, 'HEALTHY', 'DELIVERED_LATE', 'dlv-1b'),
        change(2, 'HEALTHY', 'DELIVERED_LATE', 'dlv-2b'),
      ],
    });
    expect(made.map((a) => [a.title, a.body, a.target])).toEqual([
      [
        'Late: Dataset 1',
        'Delivered 45 minutes after its deadline.',
        { view: 'dataset', orgId: ORG, datasetId: 'ds-1' },
      ],
    ]);
  });

  it('quiet hours quiet the tray, not the record the routes send from', async () => {
    const bench = await benchWith([ruleOf('missing', { event: 'missing' })]);
    bench.settings.notifications.quietHours = { enabled: true, start: '11:00', end: '13:00' };
    putDataset(bench.store, 3, 'MISSING', 'dlv-3b');
    expect(await bench.cycle({ transitions: [change(3, 'HEALTHY', 'MISSING', 'dlv-3b')] })).toEqual([]);
    expect(sent(bench).map((n) => n.title)).toEqual(['MISSING: Dataset 3']);
  });

  it('a digest due in quiet hours goes to the record, and its failures into the summary at their end', async () => {
    const bench = await benchWith([
      ruleOf('digest', { name: 'Hourly', action: 'digest', digest: { everyMinutes: 60 } }),
    ]);
    bench.settings.notifications.quietHours = { enabled: true, start: '12:30', end: '14:00' };
    putDataset(bench.store, 1, 'FAILED', 'dlv-1b');
    expect(await bench.cycle({ transitions: [change(1, 'HEALTHY', 'FAILED', 'dlv-1b')] })).toEqual([]);
    bench.clock.now = new Date('2026-11-21T13:05:00.000Z');
    expect(await bench.alerts.tick()).toEqual([]);
    expect(sent(bench).map((n) => n.title)).toEqual(['Digest “Hourly”: 1 new failure']);
    bench.clock.now = new Date('2026-11-21T14:01:00.000Z');
    const after = await bench.alerts.tick();
    expect(after.map((a) => [a.kind, a.kind === 'summary' ? a.cause : null])).toEqual([
      ['summary', 'quiet-hours'],
    ]);
    expect(after[0]).toMatchObject({ body: 'acme: Normalize failed: E_SCHEMA_MISMATCH: Dataset 1.' });
  });

  it('a failure a rule sends only to a webhook is not in the tray, and its timeline says where it went', async () => {
    const bench = await benchWith(
      [ruleOf('hook', { name: 'To the channel', routes: ['channel'] })],
      [
        {
          id: 'channel',
          kind: 'webhook',
          name: 'Team channel',
          url: 'https://hooks.example.com/x',
          secretHeader: null,
          timeoutSeconds: 10,
        },
      ],
    );
    putDataset(bench.store, 4, 'FAILED', 'dlv-4b');
    expect(await bench.cycle({ transitions: [change(4, 'HEALTHY', 'FAILED', 'dlv-4b')] })).toEqual([]);
    expect(sent(bench).map((n) => n.title)).toEqual(['FAILED: Dataset 4']);
    expect(
      datasetTimeline(bench.store, ORG, 'ds-4', 10)
        .filter((entry) => entry.kind === 'ruled')
        .map((entry) => entry.text),
    ).toEqual(['Sent by the rule “To the channel” to its routes, not the tray']);
  });

  it('lost contact follows its rule: a timeline-only rule keeps the tray quiet but the loss is recorded', async () => {
    const bench = await benchWith([
      ruleOf('contact', { name: 'Contact', event: 'contact-lost', action: 'timeline', routes: [] }),
    ]);
    bench.sync.setState(sourceState({ lastSuccessAt: bench.clock.now.toISOString() }));
    await bench.cycle();
    bench.clock.now = new Date(bench.clock.now.getTime() + 60 * 60_000);
    expect((await bench.alerts.tick()).map((a) => a.kind)).toEqual([]);
    expect(Number(bench.store.value('SELECT count(*) FROM sync_outages'))).toBe(1);
    expect(sent(bench)).toEqual([]);
  });

  it('lost contact with an urgent rule is an urgent notice, and recorded as sent', async () => {
    const bench = await benchWith([
      ruleOf('contact', { name: 'Contact', event: 'contact-lost', action: 'urgent' }),
    ]);
    bench.sync.setState(sourceState({ lastSuccessAt: bench.clock.now.toISOString() }));
    await bench.cycle();
    bench.clock.now = new Date(bench.clock.now.getTime() + 60 * 60_000);
    const made = await bench.alerts.tick();
    expect(made.map((a) => [a.kind, a.urgent])).toEqual([['contact-lost', true]]);
    expect(sent(bench).map((n) => [n.event, n.action])).toEqual([['contact-lost', 'urgent']]);
  });
});

describe('rules at the edges of a cycle', () => {
  it('a late delivery seen MISSING first is told as late by a late rule, and as recovered', async () => {
    const bench = await benchWith([
      ruleOf('late', { name: 'Late', event: 'late', lateByMinutes: 30, action: 'urgent' }),
      ruleOf('back', { name: 'Back', event: 'recovered' }),
    ]);
    putDataset(bench.store, 1, 'DELIVERED_LATE', 'dlv-1b', { lateMinutes: 45 });
    const made = await bench.cycle({ transitions: [change(1, 'MISSING', 'DELIVERED_LATE', 'dlv-1b')] });
    expect(made.map((a) => [a.title, a.urgent ?? false])).toEqual([
      ['Late: Dataset 1', true],
      ['Recovered: Dataset 1', false],
    ]);
  });

  it('what a digest rule would gather at the first sync is in its summary, and never comes back as new', async () => {
    const store = await Store.open({ dataDir: null });
    stores.push(store);
    const bench = alertsBench(store);
    putDataset(store, 1, 'FAILED', 'dlv-1a');
    saveRuleSet(
      store,
      ORG,
      {
        rules: [ruleOf('digest', { name: 'Hourly', action: 'digest', digest: { everyMinutes: 60 } })],
        routes: [],
      },
      bench.clock.now,
    );
    const first = await bench.cycle({ firstSync: true });
    expect(first.map((a) => [a.kind, a.kind === 'summary' ? a.cause : null])).toEqual([
      ['summary', 'first-sync'],
    ]);
    await bench.cycle();
    bench.clock.now = new Date(bench.clock.now.getTime() + 2 * 60 * 60_000);
    expect(await bench.alerts.tick()).toEqual([]);
    expect(sent(bench)).toEqual([]);
  });
});

describe('what the rules send reaches their routes', () => {
  it('a failure a rule sends to a webhook arrives once, with Slack text and the secret header', async () => {
    const received = await startReceiver(() => ({ status: 200 }));
    try {
      const bench = await benchWith(
        [ruleOf('hook', { name: 'To the channel', routes: ['tray', 'channel'] })],
        [
          {
            id: 'channel',
            kind: 'webhook',
            name: 'Team channel',
            url: received.url,
            secretHeader: { name: 'X-Secret', value: 's3cret' },
            timeoutSeconds: 10,
          },
        ],
      );
      const routes = new RouteDeliverer({ store: bench.store, now: () => bench.clock.now });
      await routes.start();
      putDataset(bench.store, 4, 'FAILED', 'dlv-4b', { shortCode: 'E_AUTH' });
      expect((await bench.cycle()).map((a) => a.title)).toEqual(['FAILED: Dataset 4']);
      await routes.drain();
      // Another cycle and another look send nothing again.
      await bench.cycle();
      await routes.drain();
      await routes.stop();
      expect(received.requests).toHaveLength(1);
      const [request] = received.requests;
      expect(request!.headers['x-secret']).toBe('s3cret');
      expect(JSON.parse(request!.body)).toMatchObject({
        text: 'FAILED: Dataset 4 — Normalize failed: E_AUTH',
        routeId: 'channel',
        orgId: ORG,
        ruleId: 'hook',
        event: 'failed',
        datasetIds: ['ds-4'],
      });
    } finally {
      await received.close();
    }
  });
});
