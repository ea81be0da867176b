/**
 * The settings window's state, shared by its sections: the settings as last saved (with the engine's
 * runtime facts), one editable copy of them, and the org the user was last viewing.
 *
 * The engine takes a whole Settings object per save, but each section saves on its own: a save sends the
 * last saved settings with only that section taken from the editable copy, so half-finished edits in
 * another section are never saved by accident.
 */
import {
  type ComputedRef,
  type InjectionKey,
  type Ref,
  computed,
  inject,
  provide,
  reactive,
  ref,
  watch,
} from 'vue';
import type { SettingsView } from '../../../../shared/views';
import type { Settings } from '../../../../shared/settings';
import { useAction } from '../../composables/useAction';
import { useRpc } from '../../rpc/client';
import { useSyncState } from '../../state/sync';

export type Section = keyof Settings;

export interface SettingsContext {
  /** What the engine answered last: the saved settings, defaults, runtime, key storage, overrides. */
  view: Readonly<Ref<SettingsView>>;
  /** The one editable copy; sections bind their controls to their part of it. */
  draft: Settings;
  /** The org the user came from (for snoozes and new keys), or null. */
  lastOrgId: Readonly<Ref<string | null>>;
  /** Saves `value` as the section, everything else as last saved. Throws the engine's RpcError. */
  save<K extends Section>(section: K, value: Settings[K]): Promise<SettingsView>;
}

const KEY: InjectionKey<SettingsContext> = Symbol('settings');

/** A deep copy without Vue's proxies (they cannot cross the IPC bridge). */
export const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export function provideSettings(
  initial: SettingsView,
  lastOrgId: Readonly<Ref<string | null>>,
): SettingsContext {
  const rpc = useRpc();
  const view = ref<SettingsView>(initial);
  const draft = reactive(plain(initial.settings));

  async function save<K extends Section>(section: K, value: Settings[K]): Promise<SettingsView> {
    const next = plain(view.value.settings);
    next[section] = plain(value);
    view.value = await rpc.call('settings.save', next);
    return view.value;
  }

  const context: SettingsContext = { view, draft, lastOrgId, save };
  provide(KEY, context);
  return context;
}

export function useSettings(): SettingsContext {
  const context = inject(KEY);
  if (!context) throw new Error('settings sections are used inside SettingsPanels only');
  return context;
}

export interface SectionSave {
  saving: Readonly<Ref<boolean>>;
  error: Ref<string | null>;
  /** The editable copy of the section differs from what is saved. */
  dirty: ComputedRef<boolean>;
  submit(): Promise<void>;
  discard(): void;
}

/** Save / discard for one section, with its error kept next to its controls and a toast on success. */
export function useSectionSave(section: Section, label: string): SectionSave {
  const { view, draft, save } = useSettings();
  const dirty = computed(
    () => JSON.stringify(draft[section]) !== JSON.stringify(view.value.settings[section]),
  );
  const {
    run,
    pending: saving,
    error,
  } = useAction(() => save(section, draft[section]), {
    then: discard,
    toast: () => `${label} saved`,
  });

  function discard(): void {
    Object.assign(draft, { [section]: plain(view.value.settings[section]) });
    error.value = null;
  }

  async function submit(): Promise<void> {
    await run();
  }

  return { saving, error, dirty, submit, discard };
}

/** What to tell the user when the command line sets a setting for this run. */
export function useOverride(field: string, flag: string): ComputedRef<string | null> {
  const { view } = useSettings();
  return computed(() =>
    view.value.overridden.includes(field)
      ? `Set on the command line (${flag}) for this run: the saved value applies after the next start.`
      : null,
  );
}

export interface OrgChoice {
  /** The org picked, else the one the user came from, else the first; null when there are no orgs. */
  orgId: ComputedRef<string | null>;
  options: ComputedRef<{ label: string; value: string }[]>;
  choose(orgId: string): void;
}

/** An org picker that starts at the org the user was last viewing. */
export function useOrgChoice(): OrgChoice {
  const sync = useSyncState();
  const { lastOrgId } = useSettings();
  const chosen = ref<string | null>(null);
  const orgId = computed(() => {
    const ids = sync.orgs.map((org) => org.id);
    if (chosen.value !== null && ids.includes(chosen.value)) return chosen.value;
    if (lastOrgId.value !== null && ids.includes(lastOrgId.value)) return lastOrgId.value;
    return ids[0] ?? null;
  });
  const options = computed(() =>
    sync.orgs.map((org) => ({
      label: org.name === org.id ? org.id : `${org.name} (${org.id})`,
      value: org.id,
    })),
  );
  return { orgId, options, choose: (id) => (chosen.value = id) };
}

export interface TypedNumber {
  /** What the field holds; null when it is empty. */
  value: Ref<number | null>;
  /** What is wrong with it, or null. */
  problem: ComputedRef<string | null>;
  type(value: number | null): void;
  /** Shows the draft's value again (after "Discard changes"). */
  reset(): void;
}

/**
 * A number as typed, kept apart from the draft so a bad value is shown with its message (`problemOf`),
 * not lost or clamped; only an allowed value reaches the draft (`set`). It follows the draft's value
 * (`saved`) when that changes.
 */
export function useTypedNumber(
  saved: () => number,
  set: (value: number) => void,
  problemOf: (value: number | null) => string | null,
): TypedNumber {
  const value = ref<number | null>(saved());
  watch(saved, (next) => (value.value = next));
  const problem = computed(() => problemOf(value.value));
  return {
    value,
    problem,
    type(typed) {
      value.value = typed;
      if (problem.value === null && typed !== null) set(typed);
    },
    reset: () => (value.value = saved()),
  };
}
