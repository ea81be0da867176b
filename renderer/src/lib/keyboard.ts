/**
 * Window-wide single-key shortcuts, ignored while the user types in a field (except Esc, which leaves
 * the field) and when a modifier is held (the browser's and OS's own shortcuts keep working). Enter
 * keeps pressing the focused button, following the focused link or toggling the focused switch; a
 * handler may return false to leave a key alone (nothing highlighted to open).
 */
import { onBeforeUnmount, onMounted } from 'vue';

export type KeyMap = Partial<Record<string, (event: KeyboardEvent) => void | boolean>>;

/** Open menus, pop-ups and dialogs: Esc is theirs (closing them), never the window's "back". */
const POPUPS = '.n-base-select-menu, .n-popconfirm, .n-popover, .n-modal, .n-dialog, .n-dropdown-menu';

/** naive-ui keeps a closed menu in the page, hidden: only one that is drawn counts. */
function popupOpen(): boolean {
  return [...document.querySelectorAll(POPUPS)].some((element) => element.getClientRects().length > 0);
}

const CONTROLS =
  'a, button, summary, [role="button"], [role="switch"], [role="link"], [role="checkbox"], [role="option"], [role="menuitem"]';

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

export function useKeyboard(keys: KeyMap): void {
  const onKey = (event: KeyboardEvent): void => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target)) {
      if (event.key === 'Escape') (event.target as HTMLElement).blur();
      return;
    }
    if (event.key === 'Escape' && popupOpen()) return;
    if (event.key === 'Enter' && event.target instanceof Element && event.target.closest(CONTROLS)) return;
    const action = keys[event.key];
    if (action && action(event) !== false) event.preventDefault();
  };
  onMounted(() => window.addEventListener('keydown', onKey));
  onBeforeUnmount(() => window.removeEventListener('keydown', onKey));
}
