/**
 * The time relative times are shown against: one ticking ref for the whole window (a test or the
 * benchmark may provide a fixed one), so every "5 min ago" moves together and nothing reads the clock ad hoc.
 */
import { type InjectionKey, type Ref, inject, ref } from 'vue';

export const CLOCK: InjectionKey<Ref<Date>> = Symbol('clock');

/** A ref that follows the real time, every `everyMs`. */
export function tickingClock(everyMs = 15_000): Ref<Date> {
  const now = ref(new Date());
  setInterval(() => (now.value = new Date()), everyMs);
  return now;
}

export function useNow(): Ref<Date> {
  return inject(CLOCK) ?? ref(new Date());
}
