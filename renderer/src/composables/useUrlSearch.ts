/**
 * A view's search box kept in its URL (`q`): typed text applies after a short pause, and the URL's value
 * (back, forward, a link) flows back into the box. Triage, Upcoming and Reliability search alike.
 */
import { useOsTheme } from 'naive-ui';
import { type Ref, computed, onUnmounted, ref, watch } from 'vue';

/** How long typing pauses before the search applies. */
export const SEARCH_PAUSE_MS = 200;

/** naive-ui's placeholder grey is 1.8:1 on white: a readable shade per theme (WCAG AA 4.5:1). */
export function usePlaceholderTheme() {
  const os = useOsTheme();
  return computed(() => ({
    placeholderColor: os.value === 'dark' ? 'rgba(255, 255, 255, 0.52)' : '#61666b',
  }));
}

export function useUrlSearch(
  /** The search the URL holds now. */
  current: () => string,
  /** Writes a typed search (trimmed) to the URL. */
  apply: (text: string) => void,
): { searchText: Ref<string>; searchTheme: ReturnType<typeof usePlaceholderTheme> } {
  const searchText = ref(current());
  let timer: ReturnType<typeof setTimeout> | undefined;
  watch(searchText, (text) => {
    clearTimeout(timer);
    timer = setTimeout(() => apply(text.trim()), SEARCH_PAUSE_MS);
  });
  onUnmounted(() => clearTimeout(timer));
  watch(current, (search) => {
    if (search !== searchText.value.trim()) searchText.value = search;
  });
  return { searchText, searchTheme: usePlaceholderTheme() };
}
