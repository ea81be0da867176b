/**
 * Window shortcuts: single keys act only when nobody is typing and no modifier is held; Esc in a field
 * leaves the field; Enter keeps pressing a focused button; a handler can decline a key.
 */
import { mount } from '@vue/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { defineComponent, h } from 'vue';
import { type KeyMap, useKeyboard } from '../../../../renderer/src/lib/keyboard';

let unmount: (() => void) | undefined;
afterEach(() => {
  unmount?.();
  document.body.innerHTML = '';
});

function withKeys(keys: KeyMap): void {
  const wrapper = mount(
    defineComponent({
      setup() {
        useKeyboard(keys);
        return () => h('div');
      },
    }),
    { attachTo: document.body },
  );
  unmount = () => wrapper.unmount();
}

function press(
  key: string,
  target: EventTarget = document.body,
  init: KeyboardEventInit = {},
): KeyboardEvent {
  const event = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init });
  target.dispatchEvent(event);
  return event;
}

describe('useKeyboard', () => {
  it('runs the key’s action and keeps the browser from acting on it too', () => {
    const seen: string[] = [];
    withKeys({ j: () => void seen.push('j') });
    expect(press('j').defaultPrevented).toBe(true);
    expect(press('x').defaultPrevented).toBe(false);
    expect(seen).toEqual(['j']);
  });

  it('leaves keys alone while the user types, and Esc leaves the field', () => {
    const seen: string[] = [];
    withKeys({ j: () => void seen.push('j'), Escape: () => void seen.push('back') });
    const input = document.body.appendChild(document.createElement('input'));
    input.focus();
    press('j', input);
    expect(seen).toEqual([]);
    press('Escape', input);
    expect(document.activeElement).not.toBe(input);
    expect(seen).toEqual([]);
  });

  it('leaves keys with a modifier to the browser and the system', () => {
    const seen: string[] = [];
    withKeys({ r: () => void seen.push('r') });
    press('r', document.body, { ctrlKey: true });
    press('r', document.body, { metaKey: true });
    expect(seen).toEqual([]);
  });

  it('Enter on a focused button presses the button, not the view’s Enter', () => {
    const seen: string[] = [];
    withKeys({ Enter: () => void seen.push('open') });
    const button = document.body.appendChild(document.createElement('button'));
    expect(press('Enter', button).defaultPrevented).toBe(false);
    expect(seen).toEqual([]);
    press('Enter');
    expect(seen).toEqual(['open']);
  });

  it('a handler that declines (returns false) leaves the key to the browser', () => {
    withKeys({ Enter: () => false });
    expect(press('Enter').defaultPrevented).toBe(false);
  });
});
