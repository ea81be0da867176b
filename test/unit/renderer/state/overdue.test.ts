/**
 * The window's overdue (unverified) store: reads asked while one is on its way make one more read after
 * it (never a pile of them, never an older answer last), and a read that fails keeps the last answer.
 * The engine is a hand-driven client: each `overdue.get` waits until the test answers it.
 */
import { createPinia, setActivePinia } from 'pinia';
import { expect, it } from 'vitest';
import { createApp } from 'vue';
import { RPC_CLIENT } from '../../../../renderer/src/rpc/client';
import { useOverdueState } from '../../../../renderer/src/state/overdue';
import { type RpcClient, RpcError } from '../../../../shared/rpc';
import type { OverdueSummary } from '../../../../shared/upcoming';

const summary = (deadlines: number): OverdueSummary => ({
  orgId: 'acme',
  stale: deadlines > 0,
  lastSuccessAt: '2026-11-21T04:41:00.000Z',
  datasets:
    deadlines > 0 ? [{ datasetId: 'a', datasetName: 'A', deadlines, since: '2026-11-21T05:00:00.000Z' }] : [],
  deadlines,
});

function handClient() {
  const asked: { orgId: string; answer(value: OverdueSummary | Error): void }[] = [];
  const client: RpcClient = {
    call: ((name: string, request: { orgId: string }) => {
      if (name !== 'overdue.get') throw new Error(`unexpected call ${name}`);
      return new Promise<OverdueSummary>((resolve, reject) =>
        asked.push({
          orgId: request.orgId,
          answer: (value) => (value instanceof Error ? reject(value) : resolve(value)),
        }),
      );
    }) as RpcClient['call'],
    on: () => () => undefined,
  };
  const app = createApp({});
  app.provide(RPC_CLIENT, client);
  const pinia = createPinia();
  app.use(pinia);
  setActivePinia(pinia);
  return { asked, store: app.runWithContext(() => useOverdueState()) };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

it('asked again while reading: one more read after it, whose answer is kept', async () => {
  const { asked, store } = handClient();
  const first = store.load('acme');
  void store.load('acme');
  void store.load('acme');
  expect(asked).toHaveLength(1);
  asked[0]!.answer(summary(2));
  await settle();
  expect(store.summaries.acme?.deadlines).toBe(2);
  expect(asked).toHaveLength(2);
  asked[1]!.answer(summary(3));
  await first;
  expect(store.summaries.acme?.deadlines).toBe(3);
  expect(asked).toHaveLength(2);
});

it('a read that fails keeps the last answer; the next one replaces it', async () => {
  const { asked, store } = handClient();
  const ok = store.load('acme');
  asked[0]!.answer(summary(4));
  await ok;
  const failing = store.load('acme');
  asked[1]!.answer(new RpcError('unavailable', 'the engine cannot be reached'));
  await failing;
  expect(store.summaries.acme?.deadlines).toBe(4);
  const cleared = store.load('acme');
  asked[2]!.answer(summary(0));
  await cleared;
  expect(store.summaries.acme).toMatchObject({ stale: false, datasets: [], deadlines: 0 });
});
