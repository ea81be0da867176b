/**
 * Settings → Rules through the real dispatch and handlers over a sql.js store (docs/decisions.md
 * "Settings → Rules"): a refused save changes nothing and names the field; a webhook's secret never
 * reaches the window yet survives a save of what the window was given; a set not yet saved is replayed
 * over the stored history without being saved; and a dead letter sent again from the window is woken
 * out to its mended webhook by a real deliverer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RouteDeliverer } from '../../../electron/routes/deliverer';
import { enqueueRouteDeliveries } from '../../../electron/routes/payload';
import type { Dispatch } from '../../../electron/rpc/dispatch';
import { Store } from '../../../electron/store/database';
import { readRuleSet } from '../../../electron/store/tables/ruleSets';
import { addTimelineEntry } from '../../../electron/store/tables/timeline';
import { type RpcCall, RpcError, type RpcRequest, type RpcResponse } from '../../../shared/rpc';
import { type Route, type RuleSet, defaultRuleSet } from '../../../shared/rules';
import { KEPT_SECRET } from '../../../shared/rulesView';
import { ORG, putDataset } from '../../helpers/alerts';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { engineDispatch } from '../../helpers/engineClient';
import { type Receiver, refusingUrl, startReceiver } from '../../helpers/receiver';
import { ruleOf, sampleRuleSet } from '../../helpers/rules';

const HOUR = 3_600_000;
const NOW = new Date('2026-11-28T12:00:10.000Z');

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  removeTempDirs();
});

async function engine(options: { routesChanged?: () => void } = {}): Promise<{
  store: Store;
  call: <C extends RpcCall>(name: C, request: RpcRequest<C>) => Promise<RpcResponse<C>>;
}> {
  const store = await Store.open({ dataDir: null });
  cleanups.push(() => store.close());
  putDataset(store, 1, 'HEALTHY', 'dlv-1a');
  const { dispatch }: { dispatch: Dispatch } = engineDispatch(store, tempDir('dh-rules-rpc-'), NOW, options);
  // Through JSON, as both transports carry it.
  const call = async <C extends RpcCall>(name: C, request: RpcRequest<C>) =>
    JSON.parse(JSON.stringify(await dispatch(name, JSON.parse(JSON.stringify(request))))) as RpcResponse<C>;
  return { store, call };
}

const storedRow = (store: Store) => store.get('SELECT json, saved_at FROM rule_sets WHERE org_id = ?', [ORG]);

describe('rules.get, rules.save and rules.reset', () => {
  it('an org without rules of its own has the default set, and says so', async () => {
    const { call } = await engine();
    const view = await call('rules.get', { orgId: ORG });
    const defaults = defaultRuleSet({ recoveryNotices: false });
    expect(view).toEqual({ orgId: ORG, set: defaults, own: false, savedAt: null, defaults, problem: null });
  });

  it('a refused set changes nothing and names each field at fault', async () => {
    const { store, call } = await engine();
    const saved = await call('rules.save', { orgId: ORG, set: { rules: [ruleOf('first')], routes: [] } });
    expect(saved).toMatchObject({ saved: true, view: { own: true, savedAt: NOW.toISOString() } });
    const before = storedRow(store);

    const refused = await call('rules.save', {
      orgId: ORG,
      set: {
        rules: [ruleOf('late', { event: 'late' }), ruleOf('paged', { routes: ['pager'] })],
        routes: [],
      },
    });
    expect(refused).toEqual({
      saved: false,
      problems: [
        { path: 'rules[0].lateByMinutes', message: 'a late rule says by how many minutes late' },
        { path: 'rules[1].routes[0]', message: 'no route "pager": the set has tray' },
      ],
    });
    // Structurally wrong is named by field too, not refused by the request's schema.
    const wrong = await call('rules.save', {
      orgId: ORG,
      set: { rules: [{ ...ruleOf('x'), lateByMinutes: 'ten' }], routes: [] },
    });
    expect(wrong).toMatchObject({ saved: false, problems: [{ path: 'rules[0].lateByMinutes' }] });
    expect(storedRow(store)).toEqual(before);
    expect((await call('rules.get', { orgId: ORG })).set.rules.map((rule) => rule.id)).toEqual(['first']);
  });

  it('never sends a webhook secret to the window, and keeps it when the window saves the set back', async () => {
    const { store, call } = await engine();
    await call('rules.save', { orgId: ORG, set: sampleRuleSet() });
    const view = await call('rules.get', { orgId: ORG });
    expect(JSON.stringify(view)).not.toContain('s3cret');
    const channel = view.set.routes[0] as Extract<Route, { kind: 'webhook' }>;
    expect(channel.secretHeader).toEqual({ name: 'X-Secret', value: KEPT_SECRET });

    // Edited in the window (a rule renamed), the secret untouched: the stored value stays.
    const edited: RuleSet = {
      ...view.set,
      rules: view.set.rules.map((rule, i) => (i === 0 ? { ...rule, name: 'FX late' } : rule)),
    };
    expect(await call('rules.save', { orgId: ORG, set: edited })).toMatchObject({ saved: true });
    const stored = readRuleSet(store, ORG, { rules: [], routes: [] }).set;
    expect(stored.rules[0]!.name).toBe('FX late');
    expect(stored.routes[0]).toMatchObject({ secretHeader: { name: 'X-Secret', value: 's3cret' } });

    // A webhook of another id has no secret to keep: named, nothing saved.
    const before = storedRow(store);
    const copied = await call('rules.save', {
      orgId: ORG,
      set: { ...edited, routes: [...edited.routes, { ...channel, id: 'copy' }] },
    });
    expect(copied).toEqual({
      saved: false,
      problems: [
        {
          path: 'routes[1].secretHeader.value',
          message: 'no saved secret of this webhook to keep: type the value',
        },
      ],
    });
    expect(storedRow(store)).toEqual(before);
  });

  it('reset goes back to the default set; an unknown org is not found', async () => {
    const { store, call } = await engine();
    await call('rules.save', { orgId: ORG, set: sampleRuleSet() });
    const view = await call('rules.reset', { orgId: ORG });
    expect(view).toMatchObject({
      own: false,
      savedAt: null,
      set: defaultRuleSet({ recoveryNotices: false }),
    });
    expect(storedRow(store)).toBeUndefined();
    const error = await call('rules.get', { orgId: 'nobody' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: 'not-found' });
  });
});

describe('rules.replay', () => {
  /** Synced first two days ago; ds-1 failed 5 h ago and recovered 2 h ago. */
  function history(store: Store): { failedAt: string; recoveredAt: string } {
    const first = new Date(NOW.getTime() - 48 * HOUR).toISOString();
    const failedAt = new Date(NOW.getTime() - 5 * HOUR).toISOString();
    const recoveredAt = new Date(NOW.getTime() - 2 * HOUR).toISOString();
    store.transaction(() => {
      addTimelineEntry(store, { orgId: ORG, datasetId: 'ds-1', at: first, kind: 'status', to: 'HEALTHY' });
      addTimelineEntry(store, {
        orgId: ORG,
        datasetId: 'ds-1',
        at: failedAt,
        kind: 'status',
        from: 'HEALTHY',
        to: 'FAILED',
        deliveryId: 'dlv-1b',
      });
      addTimelineEntry(store, {
        orgId: ORG,
        datasetId: 'ds-1',
        at: recoveredAt,
        kind: 'status',
        from: 'FAILED',
        to: 'HEALTHY',
        deliveryId: 'dlv-1c',
      });
    });
    return { failedAt, recoveredAt };
  }

  it('replays a set not yet saved over the stored history, and saves nothing', async () => {
    const { store, call } = await engine();
    const { failedAt, recoveredAt } = history(store);
    const candidate: RuleSet = {
      rules: [
        ruleOf('failures', { name: 'Failures', action: 'urgent' }),
        ruleOf('back', { event: 'recovered' }),
      ],
      routes: [],
    };
    const result = await call('rules.replay', { orgId: ORG, set: candidate, days: 7, timeZone: 'UTC' });
    expect(result.notifications.map((n) => [n.at, n.ruleId, n.action, n.title])).toEqual([
      [failedAt, 'failures', 'urgent', 'FAILED: Dataset 1'],
      [recoveredAt, 'back', 'notify', 'Recovered: Dataset 1'],
    ]);
    expect(result.note).toMatch(/^History starts 26 Nov 2026, 12:00/);
    expect(result.byDay.at(-1)).toEqual({
      day: '2026-11-28',
      count: 2,
      sent: 0,
      byRule: { failures: 1, back: 1 },
    });
    expect(result.byRule.map((rule) => [rule.ruleId, rule.count, rule.sent])).toEqual([
      ['failures', 1, 0],
      ['back', 1, 0],
    ]);
    expect(storedRow(store)).toBeUndefined();
    expect((await call('rules.get', { orgId: ORG })).own).toBe(false);
  });

  it('refuses a set the check refuses, and a zone it does not know, by name', async () => {
    const { call } = await engine();
    const refused = await call('rules.replay', {
      orgId: ORG,
      set: { rules: [ruleOf('late', { event: 'late' })], routes: [] },
      days: 7,
      timeZone: 'UTC',
    }).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: 'invalid-argument',
      message: expect.stringContaining('rules[0].lateByMinutes: a late rule says by how many minutes late'),
    });
    const zone = await call('rules.replay', {
      orgId: ORG,
      set: { rules: [], routes: [] },
      days: 7,
      timeZone: 'Mars/Olympus',
    }).catch((e: unknown) => e);
    expect(zone).toMatchObject({
      code: 'invalid-argument',
      message: expect.stringContaining('Mars/Olympus'),
    });
  });
});

describe('routes.deadLetters and routes.sendAgain', () => {
  let target: Receiver;

  it('sends a dead letter again to its mended webhook: the deliverer is woken, it arrives once', async () => {
    target = await startReceiver(() => ({ status: 200 }));
    cleanups.push(() => target.close());
    // The engine wakes the deliverer it runs: made once the store is open.
    const running: RouteDeliverer[] = [];
    const { store, call } = await engine({ routesChanged: () => running.forEach((each) => each.wake()) });
    const deliverer = new RouteDeliverer({
      store,
      now: () => NOW,
      retry: { maxAttempts: 1, firstDelayMs: 1, maxDelayMs: 1 },
    });
    running.push(deliverer);
    cleanups.push(() => deliverer.stop());
    const webhook: Route = {
      id: 'channel',
      kind: 'webhook',
      name: 'Team channel',
      url: await refusingUrl(),
      secretHeader: { name: 'X-Secret', value: 's3cret' },
      timeoutSeconds: 5,
    };
    const rules = [ruleOf('all', { routes: ['tray', 'channel'] })];
    await call('rules.save', { orgId: ORG, set: { rules, routes: [webhook] } });
    enqueueRouteDeliveries(
      store,
      {
        orgId: ORG,
        notificationId: 'acme:all:failed:1',
        routeIds: ['tray', 'channel'],
        payload: { title: 'FAILED: Dataset 1', body: 'Ingest failed', kind: 'failed' },
      },
      NOW,
    );
    await deliverer.start();
    await deliverer.drain();
    const [letter, ...more] = await call('routes.deadLetters', { orgId: ORG });
    expect(more).toEqual([]);
    expect(letter).toMatchObject({ routeId: 'channel', title: 'FAILED: Dataset 1', attempts: 1 });
    expect(letter!.lastError).toMatch(/could not connect/);

    // Mended in the window: the address changed, the secret as the window was given it (kept).
    const view = await call('rules.get', { orgId: ORG });
    const mended = { ...view.set.routes[0]!, url: target.url };
    expect(await call('rules.save', { orgId: ORG, set: { rules, routes: [mended] } })).toMatchObject({
      saved: true,
    });
    expect(await call('routes.sendAgain', { id: letter!.id })).toMatchObject({
      letter: { id: letter!.id, routeId: 'channel' },
      delivering: true,
    });
    await target.received(1);
    await deliverer.drain();
    expect(target.accepted.map((request) => [request.json?.title, request.headers['x-secret']])).toEqual([
      ['FAILED: Dataset 1', 's3cret'],
    ]);
    expect(await call('routes.deadLetters', { orgId: ORG })).toEqual([]);
    // Once: it is no dead letter now.
    const again = await call('routes.sendAgain', { id: letter!.id }).catch((e: unknown) => e);
    expect(again).toMatchObject({ code: 'not-found' });
  });
});
