/**
 * useDrawnCount, how a long list is drawn a screen first: the first items at once, `step` more a frame
 * until all are drawn, never fewer after a reload, at once up to an item a link or the keyboard goes to,
 * and no frame asked for once the component is gone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { nextTick, ref } from 'vue';
import { useDrawnCount } from '../../../../renderer/src/composables/useDrawnCount';
import { inSetup } from './inSetup';

let unmount: (() => void) | undefined;
afterEach(() => {
  unmount?.();
  unmount = undefined;
});

/** The composable with frames the test runs one at a time. */
function drawnOf(total: number) {
  const length = ref(total);
  const frames: (() => void)[] = [];
  const { value, wrapper } = inSetup(() =>
    useDrawnCount(() => length.value, { first: 12, step: 24, nextFrame: (grow) => frames.push(grow) }),
  );
  unmount = () => wrapper.unmount();
  const frame = (): void => frames.shift()!();
  return { ...value, length, frames, frame, wrapper };
}

describe('useDrawnCount', () => {
  it('draws the first screen at once, then a step a frame until every item is drawn', () => {
    const list = drawnOf(70);
    expect(list.drawn.value).toBe(12);
    expect(list.frames).toHaveLength(1);
    list.frame();
    expect(list.drawn.value).toBe(36);
    list.frame();
    expect(list.drawn.value).toBe(60);
    list.frame();
    expect(list.drawn.value).toBeGreaterThanOrEqual(70);
    expect(list.frames).toHaveLength(0);
  });

  it('asks for no frame when the list fits the first screen', () => {
    const list = drawnOf(5);
    expect(list.drawn.value).toBe(12);
    expect(list.frames).toHaveLength(0);
  });

  it('keeps what is drawn when the list reloads, and grows again when it got longer', async () => {
    const list = drawnOf(30);
    list.frame();
    expect(list.drawn.value).toBe(36);
    list.length.value = 10;
    await nextTick();
    expect(list.drawn.value).toBe(36);
    expect(list.frames).toHaveLength(0);
    list.length.value = 100;
    await nextTick();
    expect(list.frames).toHaveLength(1);
    list.frame();
    expect(list.drawn.value).toBe(60);
  });

  it('draws up to an item at once when a link or the keyboard goes to it', () => {
    const list = drawnOf(500);
    list.reveal(300);
    expect(list.drawn.value).toBe(301);
    list.reveal(5);
    expect(list.drawn.value).toBe(301);
    list.reveal(-1);
    expect(list.drawn.value).toBe(301);
    // One frame pending at a time, however many reveals.
    expect(list.frames).toHaveLength(1);
  });

  it('stops growing once its component is gone', () => {
    const list = drawnOf(500);
    list.wrapper.unmount();
    unmount = undefined;
    list.frame();
    expect(list.drawn.value).toBe(12);
    expect(list.frames).toHaveLength(0);
  });
});
