/**
 * One thing a user asks of the engine from a button (save, revoke, remove, export), written once: the
 * button spins while it runs, a failure is kept as a message next to it and cleared at the next try, a
 * success may toast and change what is shown, and a list may be loaded again afterwards.
 */
import { useMessage } from 'naive-ui';
import { type ComputedRef, type Ref, computed, reactive, ref } from 'vue';
import { messageOf } from '../lib/errors';

export interface ActionOptions<A extends unknown[], R> {
  /** Which row a run is about (a key's id), so only that row's button spins. */
  key?: (...args: A) => string;
  /** The success toast. */
  toast?: (result: R, ...args: A) => string;
  /** What a success changes in the component; awaited, after the toast. */
  then?: (result: R, ...args: A) => unknown;
  /** Takes a failure's message elsewhere (a form field, a row, a toast) and returns true, else it goes to `error`. */
  failed?: (message: string, ...args: A) => boolean;
  /** Loaded again after every run, whether it worked or not: either way the list may have changed. */
  reload?: () => Promise<unknown>;
  /** Where a failure is shown, when the component shares it with something else (default: a ref of its own). */
  error?: Ref<string | null>;
}

export interface Action<A extends unknown[]> {
  /** A run is under way. */
  pending: ComputedRef<boolean>;
  /** A run about this row (its `key`) is under way. */
  pendingFor(key: string): boolean;
  /** Why the last run failed, for the user; null while one runs and after a success. */
  error: Ref<string | null>;
  /**
   * Runs the action; true when it worked. One run at a time per row (per action without `key`): a run
   * asked for while the same one is under way is ignored, as a second click on a spinning button.
   */
  run(...args: A): Promise<boolean>;
}

export function useAction<A extends unknown[], R>(
  perform: (...args: A) => Promise<R>,
  options: ActionOptions<A, R> = {},
): Action<A> {
  // Asked only when there is something to toast: views without a message provider can use actions too.
  const message = options.toast ? useMessage() : null;
  const running = reactive(new Set<string>());
  const error = options.error ?? ref<string | null>(null);

  async function run(...args: A): Promise<boolean> {
    const key = options.key?.(...args) ?? '';
    if (running.has(key)) return false;
    running.add(key);
    error.value = null;
    let worked = false;
    try {
      const result = await perform(...args);
      if (options.toast) message?.success(options.toast(result, ...args));
      await options.then?.(result, ...args);
      worked = true;
    } catch (cause) {
      const text = messageOf(cause);
      if (!options.failed?.(text, ...args)) error.value = text;
    } finally {
      running.delete(key);
    }
    await options.reload?.();
    return worked;
  }

  return {
    pending: computed(() => running.size > 0),
    pendingFor: (key) => running.has(key),
    error,
    run,
  };
}
