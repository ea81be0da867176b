/** useLoad, the settings lists' loading: answer kept, failure shown until the next try, stale answers dropped. */
import { describe, expect, it } from 'vitest';
import { useLoad } from '../../../../renderer/src/composables/useLoad';
import { deferred } from './inSetup';

describe('useLoad', () => {
  it('keeps the answer, and shows a failure while still showing the last answer', async () => {
    let failing = false;
    const list = useLoad(async () => {
      if (failing) throw new Error('The engine is not running.');
      return ['a', 'b'];
    });
    expect(list.data.value).toBeNull();
    await list.load();
    expect(list.data.value).toEqual(['a', 'b']);
    expect(list.error.value).toBeNull();

    failing = true;
    await list.load();
    expect(list.error.value).toBe('The engine is not running.');
    expect(list.data.value).toEqual(['a', 'b']);
  });

  it('clears the failure when a load starts (Try again)', async () => {
    const answer = deferred<string[]>();
    let first = true;
    const list = useLoad(() => {
      if (first) {
        first = false;
        return Promise.reject(new Error('down'));
      }
      return answer.promise;
    });
    await list.load();
    expect(list.error.value).toBe('down');
    const again = list.load();
    expect(list.error.value).toBeNull();
    answer.resolve(['x']);
    await again;
    expect(list.data.value).toEqual(['x']);
  });

  it('keeps only the newest answer when loads overlap, whichever comes back first', async () => {
    const answers = [deferred<string>(), deferred<string>()];
    let call = 0;
    const list = useLoad(() => answers[call++]!.promise);
    const older = list.load();
    const newer = list.load();
    answers[1]!.resolve('org B');
    await newer;
    answers[0]!.resolve('org A');
    await older;
    expect(list.data.value).toBe('org B');

    const failingOlder = [deferred<string>(), deferred<string>()];
    call = 0;
    answers.splice(0, 2, ...failingOlder);
    const stale = list.load();
    const fresh = list.load();
    failingOlder[1]!.resolve('org C');
    failingOlder[0]!.reject(new Error('org A failed'));
    await Promise.all([stale, fresh]);
    expect(list.data.value).toBe('org C');
    expect(list.error.value).toBeNull();
  });
});
