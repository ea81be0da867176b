/**
 * Asks the engine again once a deadline it gave has passed, so a list of deadlines moves on by itself:
 * one timer for the soonest deadline (not one per row, nothing per render), checked again on every tick
 * of the window's clock (a laptop waking from sleep, a test moving the clock). A deadline asked for
 * once is asked for again only after a pause, should the engine's answer still hold it (clocks apart).
 */
import { onUnmounted, watch } from 'vue';
import { useNow } from '../../lib/clock';

/** After the deadline, so the engine's clock has passed it too. */
const MARGIN_MS = 500;
/** A deadline still first after being asked for is asked for again at most this often. */
const AGAIN_AFTER_MS = 10_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

export function useReaskAt(due: () => string | null | undefined, reask: () => void): void {
  const now = useNow();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let asked: { at: number; when: number } | null = null;

  const ask = (at: number, when: number): void => {
    asked = { at, when };
    reask();
  };

  const check = (): void => {
    clearTimeout(timer);
    const iso = due();
    const at = iso ? Date.parse(iso) : Number.NaN;
    if (Number.isNaN(at)) return;
    const current = now.value.getTime();
    const left = at + MARGIN_MS - current;
    if (left > 0) {
      timer = setTimeout(() => ask(at, at + MARGIN_MS), Math.min(left, MAX_TIMER_MS));
      return;
    }
    if (asked === null || asked.at !== at || current - asked.when >= AGAIN_AFTER_MS) ask(at, current);
  };

  watch([now, due], check, { immediate: true });
  onUnmounted(() => clearTimeout(timer));
}
