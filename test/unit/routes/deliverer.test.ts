/**
 * The deliverer over a real store and real loopback receivers (docs/decisions.md "Routes: at most once
 * (issue 27)"): each notification reaches each route at most once — retried only when it surely did not
 * arrive, dead after the last attempt or when its outcome is unknown, sent again only when asked — and a
 * route that hangs holds up no other. Time is a manual clock: the backoff's waits pass when it advances.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Route } from '../../../shared/rules';
import { Store } from '../../../electron/store/database';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import { saveRuleSet } from '../../../electron/store/tables/ruleSets';
import { claimOutboxRow, outboxRow } from '../../../electron/store/tables/routeOutbox';
import { OUTCOME_UNKNOWN_AT_START, RouteDeliverer } from '../../../electron/routes/deliverer';
import { listDeadLetters, sendAgain } from '../../../electron/routes/deadLetters';
import { enqueueRouteDeliveries } from '../../../electron/routes/payload';
import type { OutboxRow } from '../../../electron/store/tables/routeOutbox';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { until } from '../../helpers/process';
import { type Answer, type Receiver, refusingUrl, startReceiver } from '../../helpers/receiver';

const MINUTE = 60_000;
let clock = Date.parse('2026-11-21T12:00:00.000Z');
const now = () => new Date(clock);
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  removeTempDirs();
});

async function receiver(answer: (n: number) => Answer): Promise<Receiver> {
  const started = await startReceiver((_request, n) => answer(n));
  cleanups.push(() => started.close());
  return started;
}

const webhook = (id: string, url: string, timeoutSeconds = 10): Route => ({
  id,
  kind: 'webhook',
  name: id,
  url,
  secretHeader: { name: 'X-Secret', value: `secret-of-${id}` },
  timeoutSeconds,
});

async function openStore(dataDir: string | null, routes: Route[]): Promise<Store> {
  const store = await Store.open({ dataDir });
  cleanups.push(() => store.close());
  ensureOrg(store, 'acme', now());
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
          routes: ['tray', ...routes.map((r) => r.id)],
        },
      ],
      routes,
    },
    now(),
  );
  return store;
}

function deliverer(store: Store, settled: OutboxRow[] = []): RouteDeliverer {
  const started = new RouteDeliverer({
    store,
    now,
    random: () => 0.5,
    retry: { maxAttempts: 3, firstDelayMs: MINUTE, maxDelayMs: 10 * MINUTE },
    onSettled: (row) => settled.push(row),
  });
  cleanups.push(() => started.stop());
  return started;
}

const notify = (store: Store, id: string, routeIds: string[]) =>
  enqueueRouteDeliveries(
    store,
    {
      orgId: 'acme',
      notificationId: id,
      routeIds,
      payload: { title: `FAILED: ${id}`, body: 'Ingest failed', kind: 'failed' },
    },
    now(),
  );

const rowOf = (store: Store, notificationId: string, routeId: string) =>
  outboxRow(
    store,
    store.value<number>('SELECT id FROM route_outbox WHERE notification_id = ? AND route_id = ?', [
      notificationId,
      routeId,
    ])!,
  )!;

describe('route deliverer', () => {
  it('delivers to a webhook once: text, ids, payload and the secret header arrive', async () => {
    const target = await receiver(() => ({ status: 200 }));
    const store = await openStore(null, [webhook('channel', target.url)]);
    notify(store, 'failed:d-1', ['tray', 'channel']);
    const routes = deliverer(store);
    await routes.start();
    await routes.drain();
    expect(target.accepted.map((request) => request.json)).toEqual([
      {
        text: 'FAILED: failed:d-1 — Ingest failed',
        notificationId: 'failed:d-1',
        orgId: 'acme',
        routeId: 'channel',
        title: 'FAILED: failed:d-1',
        body: 'Ingest failed',
        kind: 'failed',
      },
    ]);
    expect(target.requests[0]!.headers['x-secret']).toBe('secret-of-channel');
    expect(rowOf(store, 'failed:d-1', 'channel')).toMatchObject({ state: 'sent', attempts: 1 });
    // Enqueued again (a decision replayed): nothing more is sent.
    expect(notify(store, 'failed:d-1', ['channel'])).toBe(0);
    routes.wake();
    await routes.drain();
    expect(target.requests).toHaveLength(1);
  });

  it('answered 500 then 200: tried again after its backoff, delivered exactly once', async () => {
    const target = await receiver((n) => ({ status: n === 1 ? 500 : 200 }));
    const store = await openStore(null, [webhook('channel', target.url)]);
    notify(store, 'failed:d-1', ['channel']);
    const routes = deliverer(store);
    await routes.start();
    await routes.drain();
    expect(rowOf(store, 'failed:d-1', 'channel')).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastError: 'answered 500 Internal Server Error',
      nextAttemptAt: new Date(clock + MINUTE).toISOString(),
    });
    // Not due yet: nothing is sent before its time.
    clock += MINUTE - 1;
    await routes.drain();
    expect(target.requests).toHaveLength(1);
    clock += 1;
    await routes.drain();
    expect(target.requests).toHaveLength(2);
    expect(target.accepted).toHaveLength(1);
    expect(rowOf(store, 'failed:d-1', 'channel')).toMatchObject({
      state: 'sent',
      attempts: 2,
      lastError: null,
    });
  });

  it('refused at every attempt: dead after the last, with its error; sent again, it is delivered', async () => {
    let up = false;
    const target = await receiver(() => ({ status: up ? 200 : 503 }));
    const store = await openStore(null, [
      webhook('channel', target.url),
      webhook('gone', await refusingUrl()),
    ]);
    notify(store, 'failed:d-1', ['channel', 'gone']);
    const routes = deliverer(store);
    await routes.start();
    for (let attempt = 1; attempt <= 3; attempt++) {
      await routes.drain();
      clock += 10 * MINUTE;
    }
    await routes.drain();
    expect(target.requests).toHaveLength(3);
    const dead = listDeadLetters(store, 'acme');
    const byRoute = [...dead].sort((a, b) => a.routeId.localeCompare(b.routeId));
    expect(byRoute.map((letter) => [letter.routeId, letter.attempts, letter.lastError])).toEqual([
      ['channel', 3, 'answered 503 Service Unavailable (gave up after 3 attempts)'],
      ['gone', 3, 'could not connect: ECONNREFUSED (gave up after 3 attempts)'],
    ]);
    expect(dead.map((letter) => letter.title)).toEqual(['FAILED: failed:d-1', 'FAILED: failed:d-1']);
    up = true;
    const channel = dead.find((letter) => letter.routeId === 'channel')!;
    expect(sendAgain(store, channel.id, now())).toMatchObject({ attempts: 0 });
    expect(sendAgain(store, channel.id, now())).toBeNull();
    routes.wake();
    await routes.drain();
    expect(target.accepted).toHaveLength(1);
    expect(rowOf(store, 'failed:d-1', 'channel')).toMatchObject({ state: 'sent', attempts: 1 });
    expect(listDeadLetters(store, 'acme').map((letter) => letter.routeId)).toEqual(['gone']);
  });

  it('a route that hangs holds up no other; its attempt, cut without an answer, is dead: outcome unknown', async () => {
    const slow = await receiver(() => 'hang');
    const fast = await receiver(() => ({ status: 200 }));
    const store = await openStore(null, [webhook('slow', slow.url, 300), webhook('fast', fast.url)]);
    notify(store, 'failed:d-1', ['slow', 'fast']);
    notify(store, 'failed:d-2', ['slow', 'fast']);
    const settled: OutboxRow[] = [];
    const routes = deliverer(store, settled);
    await routes.start();
    const draining = routes.drain();
    await fast.received(2);
    await slow.received(1);
    await until(() => settled.length === 2);
    // Both notifications reached the fast route while the slow one still waits for its first answer.
    expect(settled.map((row) => [row.routeId, row.notificationId, row.state])).toEqual([
      ['fast', 'failed:d-1', 'sent'],
      ['fast', 'failed:d-2', 'sent'],
    ]);
    expect(rowOf(store, 'failed:d-1', 'slow').state).toBe('sending');
    expect(rowOf(store, 'failed:d-2', 'slow').state).toBe('pending');
    slow.cutHanging();
    await until(() => slow.requests.length === 2);
    slow.cutHanging();
    await draining;
    expect(rowOf(store, 'failed:d-1', 'slow')).toMatchObject({
      state: 'dead',
      attempts: 1,
      lastError: expect.stringMatching(/^outcome unknown: the connection ended without an answer/),
    });
  });

  it('no answer within the route timeout: dead, outcome unknown, never sent again', async () => {
    const target = await receiver(() => 'hang');
    const store = await openStore(null, [webhook('channel', target.url, 1)]);
    notify(store, 'failed:d-1', ['channel']);
    const routes = deliverer(store);
    await routes.start();
    await routes.drain();
    clock += 60 * MINUTE;
    await routes.drain();
    expect(target.requests).toHaveLength(1);
    expect(rowOf(store, 'failed:d-1', 'channel')).toMatchObject({
      state: 'dead',
      lastError: 'outcome unknown: no answer within 1 s',
    });
  });

  it('a row found sending at start is dead, outcome unknown; a route no longer in the rules is dead', async () => {
    const target = await receiver(() => ({ status: 200 }));
    const store = await openStore(null, [webhook('channel', target.url)]);
    notify(store, 'failed:d-1', ['channel']);
    notify(store, 'failed:d-2', ['channel', 'removed']);
    claimOutboxRow(store, rowOf(store, 'failed:d-1', 'channel').id, now());
    const routes = deliverer(store);
    const abandoned = await routes.start();
    expect(abandoned.map((row) => [row.notificationId, row.state, row.lastError])).toEqual([
      ['failed:d-1', 'dead', OUTCOME_UNKNOWN_AT_START],
    ]);
    await routes.drain();
    expect(target.accepted.map((request) => request.json!.notificationId)).toEqual(['failed:d-2']);
    expect(rowOf(store, 'failed:d-2', 'removed')).toMatchObject({
      state: 'dead',
      lastError: `the org's rules have no route "removed" any more`,
    });
  });

  it('runs a command hook once with the document on stdin; a non-zero exit is tried again', async () => {
    const out = join(tempDir('dh-routes-hook-'), 'stdin.jsonl');
    // Appends its stdin to `out`; fails the first time (no file yet), succeeds after.
    const script = `const fs=require('fs');let t='';process.stdin.on('data',c=>t+=c).on('end',()=>{const had=fs.existsSync(process.argv[1]);fs.appendFileSync(process.argv[1],t);process.exit(had?0:4)})`;
    const pager: Route = {
      id: 'pager',
      kind: 'hook',
      name: 'Pager',
      command: process.execPath,
      args: ['-e', script, out],
      shell: false,
      timeoutSeconds: 10,
    };
    const store = await openStore(null, [pager]);
    notify(store, 'failed:d-1', ['pager']);
    const routes = deliverer(store);
    await routes.start();
    await routes.drain();
    expect(rowOf(store, 'failed:d-1', 'pager')).toMatchObject({
      state: 'pending',
      lastError: 'exited with 4',
    });
    clock += 10 * MINUTE;
    await routes.drain();
    expect(rowOf(store, 'failed:d-1', 'pager')).toMatchObject({ state: 'sent', attempts: 2 });
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { notificationId: string }).notificationId)).toEqual([
      'failed:d-1',
      'failed:d-1',
    ]);
    clock += 60 * MINUTE;
    await routes.drain();
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('pending rows left by a stop are delivered once after a restart', async () => {
    const target = await receiver(() => ({ status: 200 }));
    const dataDir = tempDir('dh-routes-');
    const first = await openStore(dataDir, [webhook('channel', target.url)]);
    notify(first, 'failed:d-1', ['channel']);
    notify(first, 'failed:d-2', ['channel']);
    await first.close();
    for (let run = 0; run < 2; run++) {
      const store = await Store.open({ dataDir });
      cleanups.push(() => store.close());
      const routes = deliverer(store);
      await routes.start();
      await routes.drain();
      await routes.stop();
      await store.close();
    }
    expect(target.accepted.map((request) => request.json!.notificationId)).toEqual([
      'failed:d-1',
      'failed:d-2',
    ]);
  });
});
