/**
 * Mounts the app's router view at a location, as the window does (pinia, the real router, a message
 * provider for copy buttons), against an RPC client, with the clock fixed at the demo data's "now".
 */
import { type VueWrapper, flushPromises, mount } from '@vue/test-utils';
import { NMessageProvider } from 'naive-ui';
import { type Pinia, createPinia } from 'pinia';
import { defineComponent, h, ref } from 'vue';
import { type RouteLocationRaw, type Router, RouterView, createMemoryHistory } from 'vue-router';
import { CLOCK } from '../../../../renderer/src/lib/clock';
import { createAppRouter } from '../../../../renderer/src/router';
import { RPC_CLIENT } from '../../../../renderer/src/rpc/client';
import { useSyncState } from '../../../../renderer/src/state/sync';
import type { RpcCall, RpcClient } from '../../../../shared/rpc';
import { ENGINE_NOW } from '../../../helpers/engineClient';

export interface MountedView {
  wrapper: VueWrapper;
  router: Router;
  pinia: Pinia;
  /** Tells the view a sync changed the org's data, as the sync state does on a `sync.cycle`. */
  syncChanged(orgId: string): void;
}

const Host = defineComponent({
  render: () => h(NMessageProvider, null, { default: () => h(RouterView) }),
});

export async function mountView(client: RpcClient, at: RouteLocationRaw): Promise<MountedView> {
  const router = createAppRouter(createMemoryHistory());
  await router.push(at);
  await router.isReady();
  const pinia = createPinia();
  const wrapper = mount(Host, {
    attachTo: document.body,
    global: {
      plugins: [pinia, router],
      provide: { [RPC_CLIENT as symbol]: client, [CLOCK as symbol]: ref(ENGINE_NOW) },
    },
  });
  await flushPromises();
  return {
    wrapper,
    router,
    pinia,
    syncChanged(orgId) {
      // The view created the store (it watches it), so this returns that instance.
      const sync = useSyncState(pinia);
      sync.changes = { ...sync.changes, [orgId]: (sync.changes[orgId] ?? 0) + 1 };
    },
  };
}

/** How many times the client was asked `name`, from an engine client's call log. */
export function countCalls(calls: { name: string }[], name: RpcCall): number {
  return calls.filter((call) => call.name === name).length;
}

/** Sends a key to the window, as a keypress with nothing focused does. */
export function press(key: string, target: EventTarget = document.body): void {
  target.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
}
