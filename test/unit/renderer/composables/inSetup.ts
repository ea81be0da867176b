/** Runs a composable inside a mounted component (under naive-ui's message provider), as a section does. */
import { type VueWrapper, mount } from '@vue/test-utils';
import { NMessageProvider } from 'naive-ui';
import { defineComponent, h } from 'vue';

export function inSetup<T>(make: () => T): { value: T; wrapper: VueWrapper } {
  let value: T | undefined;
  const Probe = defineComponent({
    setup() {
      value = make();
      return () => null;
    },
  });
  const wrapper = mount(NMessageProvider, { slots: { default: () => h(Probe) }, attachTo: document.body });
  return { value: value!, wrapper };
}

/** A promise the test settles when it wants, to look at what is shown while a call is under way. */
export function deferred<T>(): {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(cause: unknown): void;
} {
  let resolve: (value: T) => void = () => undefined;
  let reject: (cause: unknown) => void = () => undefined;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}
