/**
 * useAction, the one shape of every settings button that asks the engine for something: the button
 * spins while it runs, a failure is shown until the next try, a success toasts, and the list reloads.
 */
import { type VueWrapper, flushPromises } from '@vue/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ref } from 'vue';
import { type ActionOptions, useAction } from '../../../../renderer/src/composables/useAction';
import { RpcError } from '../../../../shared/rpc';
import { deferred, inSetup } from './inSetup';

let wrapper: VueWrapper | undefined;
afterEach(() => {
  wrapper?.unmount();
  wrapper = undefined;
});

function action<A extends unknown[], R>(perform: (...args: A) => Promise<R>, options?: ActionOptions<A, R>) {
  const mounted = inSetup(() => useAction(perform, options));
  wrapper = mounted.wrapper;
  return mounted.value;
}

describe('useAction', () => {
  it('is pending while the call runs, for its row only, and not after', async () => {
    const call = deferred<string>();
    const revoke = action((_id: string) => call.promise, { key: (id) => id });
    expect(revoke.pending.value).toBe(false);

    const done = revoke.run('key-1');
    expect(revoke.pending.value).toBe(true);
    expect(revoke.pendingFor('key-1')).toBe(true);
    expect(revoke.pendingFor('key-2')).toBe(false);
    call.resolve('ok');
    await expect(done).resolves.toBe(true);
    expect(revoke.pending.value).toBe(false);
    expect(revoke.pendingFor('key-1')).toBe(false);
  });

  it('ignores a second run of the same row while the first is under way, not another row', async () => {
    const calls: string[] = [];
    const gate = deferred<void>();
    const remove = action(
      async (id: string) => {
        calls.push(id);
        await gate.promise;
      },
      { key: (id) => id },
    );
    const first = remove.run('a');
    await expect(remove.run('a')).resolves.toBe(false);
    const other = remove.run('b');
    expect(calls).toEqual(['a', 'b']);
    gate.resolve();
    await expect(Promise.all([first, other])).resolves.toEqual([true, true]);
  });

  it("shows a failure's message, clears it when the next run starts, and keeps it cleared on success", async () => {
    let failing = true;
    const save = action(async () => {
      if (failing) throw new RpcError('invalid-argument', 'port out of range');
    });
    await expect(save.run()).resolves.toBe(false);
    expect(save.error.value).toBe('port out of range');

    failing = false;
    const call = save.run();
    expect(save.error.value).toBeNull();
    await call;
    expect(save.error.value).toBeNull();
  });

  it('toasts and applies a success, in that order, and does neither after a failure', async () => {
    const seen: string[] = [];
    let failing = false;
    const create = action(
      async (name: string) => {
        if (failing) throw new Error('refused');
        return `${name}-id`;
      },
      {
        toast: (id, name) => `Key “${name}” created as ${id}`,
        then: (id) => void seen.push(id),
      },
    );
    await create.run('nightly');
    expect(seen).toEqual(['nightly-id']);
    await vi.waitFor(() =>
      expect(document.body.textContent).toContain('Key “nightly” created as nightly-id'),
    );

    failing = true;
    await create.run('weekly');
    expect(seen).toEqual(['nightly-id']);
    expect(document.body.textContent).not.toContain('weekly');
  });

  it('reloads after the call, whether it worked or not, once the button stopped spinning', async () => {
    let failing = false;
    const pendingAtReload: boolean[] = [];
    const remove = action(
      async () => {
        if (failing) throw new Error('gone');
      },
      { reload: async () => void pendingAtReload.push(remove.pending.value) },
    );
    await remove.run();
    failing = true;
    await remove.run();
    expect(pendingAtReload).toEqual([false, false]);
    expect(remove.error.value).toBe('gone');
  });

  it('lets a failure go elsewhere (a form field, a row) instead of the shared message', async () => {
    const fields: Record<string, string> = {};
    const send = action(
      async (field: string) => {
        throw new Error(`bad ${field}`);
      },
      {
        failed: (text, field) => {
          if (field !== 'baseUrl') return false;
          fields[field] = text;
          return true;
        },
      },
    );
    await send.run('baseUrl');
    expect(fields).toEqual({ baseUrl: 'bad baseUrl' });
    expect(send.error.value).toBeNull();
    await send.run('name');
    expect(send.error.value).toBe('bad name');
  });

  it('shows its failure in a message it shares with a list, when given one', async () => {
    const shared = ref<string | null>('could not load');
    const remove = action(() => Promise.reject(new Error('not removed')), { error: shared });
    const run = remove.run();
    expect(shared.value).toBeNull();
    await run;
    await flushPromises();
    expect(shared.value).toBe('not removed');
    expect(remove.error).toBe(shared);
  });
});
