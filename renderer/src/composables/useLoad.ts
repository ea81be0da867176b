/**
 * A list (or a page's data) loaded from the engine, and loaded again on request: what was shown stays
 * until the new answer comes, a failure is kept as a message until the next try, and only the newest
 * load's answer is kept when loads overlap (the user switched orgs quickly).
 */
import { type Ref, type ShallowRef, ref, shallowRef } from 'vue';
import { messageOf } from '../lib/errors';

export interface Loaded<T> {
  /** The last answer, or null before the first. */
  data: ShallowRef<T | null>;
  /** Why the last load failed, for the user. */
  error: Ref<string | null>;
  load(): Promise<void>;
}

export function useLoad<T>(fetch: () => Promise<T>): Loaded<T> {
  const data = shallowRef<T | null>(null);
  const error = ref<string | null>(null);
  let newest = 0;

  async function load(): Promise<void> {
    const mine = ++newest;
    error.value = null;
    try {
      const value = await fetch();
      if (mine === newest) data.value = value;
    } catch (cause) {
      if (mine === newest) error.value = messageOf(cause);
    }
  }

  return { data, error, load };
}
