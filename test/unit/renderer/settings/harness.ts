/**
 * Mounts the settings view as the window would: naive-ui's message and dialog providers around it, the
 * app's router and a fresh pinia, the given RPC client (the real in-process engine) and a fixed clock.
 * Queries go by accessible name (aria-label or visible text), as a user would find the controls.
 * `engineForEachTest` gives each test a fresh engine and unmounts what the test mounted.
 */
import { type DOMWrapper, type VueWrapper, flushPromises, mount } from '@vue/test-utils';
import { NDialogProvider, NMessageProvider } from 'naive-ui';
import { afterEach, beforeEach } from 'vitest';
import { createPinia } from 'pinia';
import { defineComponent, h, ref } from 'vue';
import { createMemoryHistory } from 'vue-router';
import type { RpcCall, RpcClient, RpcRequest, RpcResponse } from '../../../../shared/rpc';
import type { SettingsView as SettingsState } from '../../../../shared/views';
import { CLOCK } from '../../../../renderer/src/lib/clock';
import { RPC_CLIENT } from '../../../../renderer/src/rpc/client';
import { createAppRouter } from '../../../../renderer/src/router';
import SettingsView from '../../../../renderer/src/views/SettingsView.vue';
import { ENGINE_NOW, ENGINE_ORG, type EngineClient, engineClient } from '../../../helpers/engineClient';

/** What the running test mounted, unmounted after it. */
const mounted: VueWrapper[] = [];

/**
 * A fresh engine (20 demo datasets) for each test of the file, closed after it, with the settings the
 * test mounted unmounted first. The object returned stands for the current test's engine.
 */
export function engineForEachTest(): EngineClient {
  let current: EngineClient | undefined;
  beforeEach(async () => {
    current = await engineClient({ datasets: 20 });
  });
  afterEach(async () => {
    for (const wrapper of mounted.splice(0)) wrapper.unmount();
    await current?.close();
    current = undefined;
  });
  return new Proxy({} as EngineClient, {
    get(_, key) {
      if (!current) throw new Error('the engine exists only while a test runs');
      return Reflect.get(current, key);
    },
  });
}

const Root = defineComponent({
  render: () => h(NMessageProvider, () => h(NDialogProvider, () => h(SettingsView))),
});

export async function mountSettings(
  client: RpcClient,
  path = `/settings?org=${ENGINE_ORG}`,
): Promise<VueWrapper> {
  const router = createAppRouter(createMemoryHistory());
  await router.push(path);
  await router.isReady();
  const wrapper = mount(Root, {
    // Attached: popconfirms and toasts are teleported to the body.
    attachTo: document.body,
    global: {
      plugins: [createPinia(), router],
      provide: { [RPC_CLIENT as symbol]: client, [CLOCK as symbol]: ref(ENGINE_NOW) },
    },
  });
  mounted.push(wrapper);
  await settle();
  return wrapper;
}

/** Lets every pending engine call and the renders after it finish. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await flushPromises();
}

/** The one input with this accessible name. */
export function input(root: VueWrapper | DOMWrapper<Element>, label: string): DOMWrapper<HTMLInputElement> {
  const found = root.findAll<HTMLInputElement>(`input[aria-label="${label}"]`);
  if (found.length !== 1) throw new Error(`${found.length} inputs named "${label}"`);
  return found[0]!;
}

/** The one element of `selector` named `name` (aria-label, else its text), among the body's descendants. */
function named<T extends HTMLElement>(selector: string, name: string, within: Element = document.body): T {
  const found = [...within.querySelectorAll<T>(selector)].filter(
    (element) => (element.getAttribute('aria-label') ?? element.textContent?.trim()) === name,
  );
  if (found.length !== 1) throw new Error(`${found.length} of ${selector} named "${name}"`);
  return found[0]!;
}

export const button = (name: string, within?: Element): HTMLButtonElement => named('button', name, within);
export const switchNamed = (name: string, within?: Element): HTMLElement =>
  named('[role="switch"]', name, within);

export async function click(element: HTMLElement): Promise<void> {
  element.click();
  await settle();
}

/** Types into an input as a user does (the text, then leaving the field). */
export async function type(field: DOMWrapper<HTMLInputElement>, text: string): Promise<void> {
  await field.setValue(text);
  await field.trigger('blur');
  await settle();
}

/** Clicks the positive button of the open popconfirm (e.g. "Revoke"). */
export async function confirm(name: string): Promise<void> {
  const panel = [...document.body.querySelectorAll('.n-popconfirm')].at(-1);
  if (!panel) throw new Error('no confirmation is open');
  await click(button(name, panel));
}

export const section = (wrapper: VueWrapper, id: string): DOMWrapper<Element> =>
  wrapper.find(`#settings-${id}`);

/** The client with settings answers changed, e.g. settings given on the command line. */
export function withOverridden(client: RpcClient, overridden: string[]): RpcClient {
  return {
    on: (name, listener) => client.on(name, listener),
    async call<C extends RpcCall>(name: C, request: RpcRequest<C>): Promise<RpcResponse<C>> {
      const answer = await client.call(name, request);
      if (name !== 'settings.get' && name !== 'settings.save') return answer;
      return { ...(answer as SettingsState), overridden } as RpcResponse<C>;
    },
  };
}
