/**
 * Settings → Rules' state, shared by its parts (the list, a rule's form, the routes, the replay): the
 * org's rules as last loaded, one editable copy, and what is wrong with it — checked here as typed by
 * the same shared/ruleCheck.ts the engine runs, plus what the engine refused at the last save (a secret
 * with nothing to keep) until the copy changes. Nothing is saved while a problem stands.
 */
import {
  type ComputedRef,
  type InjectionKey,
  type Ref,
  computed,
  inject,
  provide,
  ref,
  shallowRef,
  watch,
} from 'vue';
import { type RuleProblem, checkRuleSet } from '../../../../../shared/ruleCheck';
import type { RuleSet } from '../../../../../shared/rules';
import type { RulesView } from '../../../../../shared/rulesView';
import { useRpc } from '../../../rpc/client';
import { messageOf } from '../../../lib/errors';
import { plain } from '../context';

export interface RulesEditor {
  orgId: ComputedRef<string | null>;
  /** What the engine answered last (null while loading). */
  view: Readonly<Ref<RulesView | null>>;
  loadError: Ref<string | null>;
  /** The editable copy: every part changes it in place. */
  draft: Ref<RuleSet>;
  problems: ComputedRef<RuleProblem[]>;
  dirty: ComputedRef<boolean>;
  /** The rule whose form is open (its index), or null. */
  selected: Ref<number | null>;
  load(): Promise<void>;
  /** Saves the copy; false (with the problems shown by their fields) when the engine refused it. */
  save(): Promise<boolean>;
  reset(): Promise<void>;
  discard(): void;
}

const KEY: InjectionKey<RulesEditor> = Symbol('rules editor');

export function provideRulesEditor(orgId: ComputedRef<string | null>): RulesEditor {
  const rpc = useRpc();
  const view = shallowRef<RulesView | null>(null);
  const loadError = ref<string | null>(null);
  const draft = ref<RuleSet>({ rules: [], routes: [] });
  const refused = ref<RuleProblem[]>([]);
  const selected = ref<number | null>(null);

  const checked = computed(() => checkRuleSet(plain(draft.value)));
  const problems = computed(() => (checked.value.ok ? refused.value : checked.value.problems));
  const dirty = computed(
    () => view.value !== null && JSON.stringify(draft.value) !== JSON.stringify(view.value.set),
  );
  // The engine's refusal is about the copy it was sent: an edit may have mended it.
  watch(draft, () => (refused.value = []), { deep: true });

  function show(next: RulesView): void {
    view.value = next;
    draft.value = plain(next.set);
    if (selected.value !== null && selected.value >= next.set.rules.length) selected.value = null;
  }

  let newest = 0;
  async function load(): Promise<void> {
    const org = orgId.value;
    const mine = ++newest;
    loadError.value = null;
    if (org === null) return;
    try {
      const next = await rpc.call('rules.get', { orgId: org });
      if (mine === newest) show(next);
    } catch (error) {
      if (mine === newest) loadError.value = messageOf(error);
    }
  }

  async function save(): Promise<boolean> {
    const org = orgId.value;
    if (org === null) return false;
    const result = await rpc.call('rules.save', { orgId: org, set: plain(draft.value) });
    if (!result.saved) {
      refused.value = result.problems;
      return false;
    }
    show(result.view);
    return true;
  }

  async function reset(): Promise<void> {
    const org = orgId.value;
    if (org === null) return;
    selected.value = null;
    show(await rpc.call('rules.reset', { orgId: org }));
  }

  function discard(): void {
    if (view.value) draft.value = plain(view.value.set);
    if (selected.value !== null && selected.value >= draft.value.rules.length) selected.value = null;
  }

  // Another org's rules never stay on screen under this one's name.
  watch(
    orgId,
    () => {
      view.value = null;
      selected.value = null;
      void load();
    },
    { immediate: true },
  );

  const editor: RulesEditor = {
    orgId,
    view,
    loadError,
    draft,
    problems,
    dirty,
    selected,
    load,
    save,
    reset,
    discard,
  };
  provide(KEY, editor);
  return editor;
}

export function useRulesEditor(): RulesEditor {
  const editor = inject(KEY);
  if (!editor) throw new Error('the rules editor is used inside RulesSettings only');
  return editor;
}
