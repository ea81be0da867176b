/** The frame of every view: the app's tray and notifications send it places (`app.navigate`). */
import { flushPromises, mount } from '@vue/test-utils';
import { NDialogProvider, NMessageProvider } from 'naive-ui';
import { createPinia } from 'pinia';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { defineComponent, h, ref } from 'vue';
import { createMemoryHistory } from 'vue-router';
import AppShell from '../../../../renderer/src/components/AppShell.vue';
import { CLOCK } from '../../../../renderer/src/lib/clock';
import { createAppRouter } from '../../../../renderer/src/router';
import { RPC_CLIENT } from '../../../../renderer/src/rpc/client';
import { targetPath } from '../../../../shared/routes';
import { ENGINE_NOW, ENGINE_ORG, type EngineClient, engineClient } from '../../../helpers/engineClient';

let engine: EngineClient;
beforeEach(async () => {
  engine = await engineClient();
});
afterEach(() => engine.close());

it('goes where the app sends it: a delivery from a notification, the FAILED list from a summary', async () => {
  const router = createAppRouter(createMemoryHistory());
  await router.push('/settings');
  const Host = defineComponent({
    render: () =>
      h(NMessageProvider, null, { default: () => h(NDialogProvider, null, { default: () => h(AppShell) }) }),
  });
  const wrapper = mount(Host, {
    attachTo: document.body,
    global: {
      plugins: [createPinia(), router],
      provide: { [RPC_CLIENT as symbol]: engine.client, [CLOCK as symbol]: ref(ENGINE_NOW) },
    },
  });
  await flushPromises();
  const delivery = { view: 'delivery', orgId: ENGINE_ORG, datasetId: 'ds a/b', deliveryId: 'dlv-1' } as const;
  engine.emit('app.navigate', { path: targetPath(delivery) });
  await expect.poll(() => router.currentRoute.value.name, { timeout: 15_000 }).toBe('delivery');
  expect(router.currentRoute.value).toMatchObject({
    name: 'delivery',
    params: { orgId: ENGINE_ORG, datasetId: 'ds a/b', deliveryId: 'dlv-1' },
  });
  engine.emit('app.navigate', { path: targetPath({ view: 'failed', orgId: ENGINE_ORG }) });
  await expect.poll(() => router.currentRoute.value.name, { timeout: 15_000 }).toBe('datasets');
  expect(router.currentRoute.value).toMatchObject({ name: 'datasets', query: { status: 'FAILED' } });
  wrapper.unmount();
  // Unmounted: no longer listening (no navigation is even tried).
  const tried: string[] = [];
  router.beforeEach((to) => void tried.push(to.fullPath));
  engine.emit('app.navigate', { path: '/settings' });
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(tried).toEqual([]);
});
