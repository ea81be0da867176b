/**
 * useRouteData, the route plumbing of the dataset and delivery views: the route's ids as strings, a
 * load with a spinner when they change, only the newest route's answer kept, Retry after a failure,
 * nothing loaded while an id is missing, and a quiet reload when a sync changed the org.
 */
import { type VueWrapper, flushPromises, mount } from '@vue/test-utils';
import { type Pinia, createPinia } from 'pinia';
import { afterEach, describe, expect, it } from 'vitest';
import { defineComponent } from 'vue';
import { RouterView, createMemoryHistory, createRouter } from 'vue-router';
import {
  type RouteData,
  type RouteIds,
  useRouteData,
} from '../../../../renderer/src/composables/useRouteData';
import { RPC_CLIENT } from '../../../../renderer/src/rpc/client';
import { useSyncState } from '../../../../renderer/src/state/sync';
import type { RpcClient } from '../../../../shared/rpc';
import { deferred } from './inSetup';

type Ids = RouteIds<'thingId'>;

let wrapper: VueWrapper | undefined;
afterEach(() => {
  wrapper?.unmount();
  wrapper = undefined;
});

/** A view of "things" at /orgs/:orgId/things/:thingId whose loads the test answers one by one. */
async function mountThing(at: string) {
  const asked: { ids: Ids; answer: ReturnType<typeof deferred<string>> }[] = [];
  let view: RouteData<'thingId', string> | undefined;
  const Thing = defineComponent({
    setup() {
      view = useRouteData(['thingId'], (ids) => {
        const answer = deferred<string>();
        asked.push({ ids, answer });
        return answer.promise;
      });
      return () => null;
    },
  });
  const router = createRouter({
    history: createMemoryHistory(),
    routes: [
      { path: '/orgs/:orgId/things/:thingId', component: Thing },
      { path: '/orgs/:orgId', component: Thing },
    ],
  });
  await router.push(at);
  await router.isReady();
  const pinia: Pinia = createPinia();
  const unused: RpcClient = { call: () => Promise.reject(new Error('not asked')), on: () => () => undefined };
  wrapper = mount(RouterView, {
    global: { plugins: [pinia, router], provide: { [RPC_CLIENT as symbol]: unused } },
  });
  await flushPromises();
  return { view: view!, asked, router, pinia };
}

describe('useRouteData', () => {
  it("loads with the route's ids as strings, with a spinner until the answer", async () => {
    const { view, asked } = await mountThing('/orgs/acme/things/t-1');
    expect(asked.map((a) => a.ids)).toEqual([{ orgId: 'acme', thingId: 't-1' }]);
    expect(view.ids.value).toEqual({ orgId: 'acme', thingId: 't-1' });
    expect(view.loading.value).toBe(true);
    asked[0]!.answer.resolve('thing one');
    await flushPromises();
    expect(view.loading.value).toBe(false);
    expect(view.data.value).toBe('thing one');
  });

  it('keeps only the answer for the route shown now when the ids change before an answer', async () => {
    const { view, asked, router } = await mountThing('/orgs/acme/things/t-1');
    await router.push('/orgs/acme/things/t-2');
    await flushPromises();
    expect(asked.map((a) => a.ids.thingId)).toEqual(['t-1', 't-2']);
    asked[1]!.answer.resolve('thing two');
    await flushPromises();
    asked[0]!.answer.resolve('thing one, late');
    await flushPromises();
    expect(view.data.value).toBe('thing two');
    expect(view.ids.value.thingId).toBe('t-2');

    // A late failure of the old route is no error of the new one either.
    await router.push('/orgs/acme/things/t-3');
    await flushPromises();
    await router.push('/orgs/acme/things/t-4');
    await flushPromises();
    asked[3]!.answer.resolve('thing four');
    asked[2]!.answer.reject(new Error('t-3 is gone'));
    await flushPromises();
    expect(view.error.value).toBeNull();
    expect(view.data.value).toBe('thing four');
  });

  it('shows why a load failed, clears it on Retry, and never shows the last thing under new ids', async () => {
    const { view, asked, router } = await mountThing('/orgs/acme/things/t-1');
    asked[0]!.answer.resolve('thing one');
    await flushPromises();

    await router.push('/orgs/acme/things/t-2');
    await flushPromises();
    expect(view.data.value).toBeNull();
    asked[1]!.answer.reject(new Error('The engine is not running.'));
    await flushPromises();
    expect(view.error.value).toBe('The engine is not running.');
    expect(view.loading.value).toBe(false);

    const retry = view.reload(false);
    expect(view.error.value).toBeNull();
    expect(view.loading.value).toBe(true);
    asked[2]!.answer.resolve('thing two');
    await retry;
    expect(view.data.value).toBe('thing two');
  });

  it('loads nothing while an id is missing (the view is being left)', async () => {
    const { view, asked } = await mountThing('/orgs/acme');
    expect(asked).toEqual([]);
    expect(view.ids.value).toEqual({ orgId: 'acme', thingId: '' });
  });

  it('reloads quietly, keeping the thing shown, when a sync changed its org', async () => {
    const { view, asked, pinia } = await mountThing('/orgs/acme/things/t-1');
    asked[0]!.answer.resolve('thing one');
    await flushPromises();
    const sync = useSyncState(pinia);
    sync.changes = { ...sync.changes, acme: 1 };
    await flushPromises();
    expect(asked).toHaveLength(2);
    expect(view.loading.value).toBe(false);
    expect(view.data.value).toBe('thing one');
    asked[1]!.answer.resolve('thing one, newer');
    await flushPromises();
    expect(view.data.value).toBe('thing one, newer');
  });
});
