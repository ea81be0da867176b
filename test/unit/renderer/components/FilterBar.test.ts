/**
 * The filter bar above the datasets table: the user picks a field and an operator in naive-ui's selects,
 * types a value and adds it; the bar asks for the filter's canonical text (shared/filter.ts), refuses what
 * the engine's parser refuses (with the parser's message), and shows active filters as removable tags.
 */
import { type VueWrapper, flushPromises, mount } from '@vue/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import FilterBar from '../../../../renderer/src/components/datasets/FilterBar.vue';
import {
  FILTER_FIELDS,
  type Filter,
  type FilterField,
  type FilterOperator,
  allowedOperators,
  parseFilter,
  printFilter,
} from '../../../../shared/filter';

// happy-dom lays nothing out, so the select menu's virtual list would measure a zero-height viewport and
// render no option. Report every observed element as 300 px wide, 600 px high (before naive-ui loads: its
// resize observer is created once, when the module loads).
vi.hoisted(() => {
  class MeasuredResizeObserver {
    constructor(private readonly callback: ResizeObserverCallback) {}
    observe(target: Element): void {
      const entry = { target, contentRect: { width: 300, height: 600 } } as unknown as ResizeObserverEntry;
      queueMicrotask(() => this.callback([entry], this as unknown as ResizeObserver));
    }
    unobserve(): void {}
    disconnect(): void {}
  }
  globalThis.ResizeObserver = MeasuredResizeObserver;
});

const FIELD_LABELS: Record<FilterField, string> = {
  datasetName: 'Dataset name',
  datasetId: 'Dataset id',
  dataProduct: 'Data product',
  supplierId: 'Supplier id',
  deliveryStatus: 'Delivery status',
  deliveryId: 'Delivery id',
  legacyDatasetId: 'Legacy dataset id',
};
const OPERATOR_LABELS: Record<FilterOperator, string> = {
  eq: 'is',
  neq: 'is not',
  in: 'is one of (comma-separated)',
  like: 'matches (* = anything)',
  ilike: 'matches, any case (* = anything)',
};

/** Every filterable field, in the contract's order. */
const FIELDS = Object.keys(FILTER_FIELDS) as FilterField[];

let wrapper: VueWrapper | null = null;
afterEach(() => {
  wrapper?.unmount();
  wrapper = null;
  document.body.innerHTML = '';
});

async function filterBar(filters: string[] = []): Promise<VueWrapper> {
  // Attached: the select menus are teleported to the body.
  wrapper = mount(FilterBar, { props: { filters }, attachTo: document.body });
  await flushPromises();
  return wrapper;
}

type SelectName = 'Filter field' | 'Filter operator';

const selectOf = (w: VueWrapper, name: SelectName) => w.get(`.n-select[aria-label="${name}"]`);

/** What the select shows as chosen. */
const shown = (w: VueWrapper, name: SelectName) =>
  selectOf(w, name).get('.n-base-selection-input__content').text();

/** Opens the select's menu, scrolled to its top as the user would, and returns it. */
async function openMenu(w: VueWrapper, name: SelectName): Promise<HTMLElement> {
  await selectOf(w, name).get('.n-base-selection').trigger('click');
  await flushPromises();
  const open = [...document.body.querySelectorAll<HTMLElement>('.n-base-select-menu')].filter(
    (menu) => menu.style.display !== 'none',
  );
  if (open.length !== 1) throw new Error(`${open.length} select menus are open`);
  const list = open[0]!.querySelector<HTMLElement>('.v-vl')!;
  list.scrollTop = 0;
  list.dispatchEvent(new Event('scroll'));
  await flushPromises();
  return open[0]!;
}

const optionLabels = (menu: HTMLElement): string[] =>
  [...menu.querySelectorAll('.n-base-select-option__content')].map((option) => option.textContent!.trim());

/** The labels of the select's options, as its menu lists them (opened, read, closed again). */
async function optionsOf(w: VueWrapper, name: SelectName): Promise<string[]> {
  const labels = optionLabels(await openMenu(w, name));
  await selectOf(w, name).get('.n-base-selection').trigger('click');
  await flushPromises();
  return labels;
}

/** Picks the option with this label in the select, by clicking it in the opened menu. */
async function choose(w: VueWrapper, name: SelectName, label: string): Promise<void> {
  const menu = await openMenu(w, name);
  const option = [...menu.querySelectorAll<HTMLElement>('.n-base-select-option')].find(
    (element) => element.querySelector('.n-base-select-option__content')?.textContent?.trim() === label,
  );
  if (!option) throw new Error(`no option "${label}" in ${name} (has ${optionLabels(menu).join(', ')})`);
  option.click();
  await flushPromises();
  expect(shown(w, name)).toBe(label);
}

const valueInput = (w: VueWrapper) => w.get<HTMLInputElement>('input[aria-label="Filter value"]');

const buttonNamed = (w: VueWrapper, name: string) => {
  const found = w.findAll('button').filter((b) => (b.attributes('aria-label') ?? b.text()) === name);
  if (found.length !== 1) throw new Error(`${found.length} buttons named "${name}"`);
  return found[0]!;
};

/** Fills the form and presses "Add filter". */
async function addFilter(
  w: VueWrapper,
  field: FilterField,
  op: FilterOperator,
  value: string,
): Promise<void> {
  await choose(w, 'Filter field', FIELD_LABELS[field]);
  await choose(w, 'Filter operator', OPERATOR_LABELS[op]);
  await valueInput(w).setValue(value);
  await buttonNamed(w, 'Add filter').trigger('click');
  await flushPromises();
}

/** The filter lists the bar asked its parent for, one per change. */
const emitted = (w: VueWrapper): string[][] =>
  (w.emitted('update:filters') ?? []).map(([filters]) => filters as string[]);

const alertText = (w: VueWrapper) => w.find('[role="alert"]');

/** The message the engine's parser gives for a filter text. */
function parserMessage(text: string): string {
  try {
    parseFilter(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} parses`);
}

describe('FilterBar', { timeout: 15_000 }, () => {
  it('starts on "Dataset name" "matches, any case" with an empty value and no active filters', async () => {
    const w = await filterBar();
    expect(shown(w, 'Filter field')).toBe('Dataset name');
    expect(shown(w, 'Filter operator')).toBe('matches, any case (* = anything)');
    expect(valueInput(w).element.value).toBe('');
    expect(w.find('[aria-label="Active filters"]').exists()).toBe(false);
    expect(alertText(w).exists()).toBe(false);
  });

  it('offers every filterable field, and for each exactly the operators the API allows for it', async () => {
    const w = await filterBar();
    expect((await optionsOf(w, 'Filter field')).sort()).toEqual(Object.values(FIELD_LABELS).sort());
    for (const field of FIELDS) {
      await choose(w, 'Filter field', FIELD_LABELS[field]);
      expect(await optionsOf(w, 'Filter operator')).toEqual(
        allowedOperators(field).map((op) => OPERATOR_LABELS[op]),
      );
    }
  });

  it('switches to the first allowed operator when the chosen one does not apply to the new field', async () => {
    const w = await filterBar();
    await choose(w, 'Filter field', 'Delivery status');
    expect(shown(w, 'Filter operator')).toBe('is');
    await choose(w, 'Filter operator', 'is one of (comma-separated)');
    await choose(w, 'Filter field', 'Supplier id');
    expect(shown(w, 'Filter operator')).toBe('is one of (comma-separated)');
  });

  describe('adds the canonical filter text', () => {
    it.each<[FilterField, FilterOperator, string, string]>([
      ['datasetName', 'ilike', 'fx', 'datasetName.ilike.*fx*'],
      ['datasetName', 'like', 'FX*spot', 'datasetName.like.FX*spot'],
      ['datasetId', 'eq', '  ds-001  ', 'datasetId.eq.ds-001'],
      ['dataProduct', 'neq', 'rates', 'dataProduct.neq.rates'],
      ['supplierId', 'in', 'acme, globex ,initech', 'supplierId.in.(acme,globex,initech)'],
      ['deliveryStatus', 'in', 'FAILED, MISSING', 'deliveryStatus.in.(FAILED,MISSING)'],
      ['deliveryStatus', 'eq', 'HEALTHY', 'deliveryStatus.eq.HEALTHY'],
      ['deliveryStatus', 'neq', 'DELIVERED_LATE', 'deliveryStatus.neq.DELIVERED_LATE'],
      ['deliveryId', 'eq', 'dlv-42', 'deliveryId.eq.dlv-42'],
      ['legacyDatasetId', 'in', '17,18', 'legacyDatasetId.in.(17,18)'],
      // List items with parentheses, quotes or backslashes are quoted, as printFilter does.
      [
        'dataProduct',
        'in',
        'fx (spot), "majors", a\\b',
        'dataProduct.in.("fx (spot)","\\"majors\\"","a\\\\b")',
      ],
      // Single values are taken literally: commas and parentheses need no quoting there.
      ['supplierId', 'eq', 'a,b (c)', 'supplierId.eq.a,b (c)'],
    ])('%s %s "%s" → %s', async (field, op, value, expected) => {
      const w = await filterBar(['supplierId.eq.existing']);
      await addFilter(w, field, op, value);
      expect(emitted(w)).toEqual([['supplierId.eq.existing', expected]]);
      // What the bar adds is what the engine reads back.
      expect(printFilter(parseFilter(expected))).toBe(expected);
      expect(alertText(w).exists()).toBe(false);
      expect(valueInput(w).element.value).toBe('');
    });

    it('for every field and every operator it allows', async () => {
      const w = await filterBar();
      const expected: string[] = [];
      for (const field of FIELDS) {
        for (const op of allowedOperators(field)) {
          const value = field === 'deliveryStatus' ? 'MISSING' : 'v1';
          const filter: Filter =
            op === 'in'
              ? { field, op, values: [value] }
              : { field, op, value: op === 'like' || op === 'ilike' ? `*${value}*` : value };
          expected.push(printFilter(filter));
          await addFilter(w, field, op, value);
        }
      }
      // The parent did not take them (props unchanged): each add asked for that one filter.
      expect(emitted(w).map((filters) => filters.at(-1))).toEqual(expected);
      expect(emitted(w).every((filters) => filters.length === 1)).toBe(true);
    });
  });

  it("refuses a value the parser refuses: shows the parser's message as an alert and adds nothing", async () => {
    const w = await filterBar(['supplierId.eq.acme']);
    await addFilter(w, 'deliveryStatus', 'eq', 'BROKEN');
    expect(alertText(w).exists()).toBe(true);
    expect(alertText(w).text()).toBe(parserMessage('deliveryStatus.eq.BROKEN'));
    expect(alertText(w).text()).toContain("'BROKEN' is not a delivery status");
    expect(emitted(w)).toEqual([]);
    // The value stays, to be corrected.
    expect(valueInput(w).element.value).toBe('BROKEN');
  });

  it('refuses a list with one bad status, naming it', async () => {
    const w = await filterBar();
    await addFilter(w, 'deliveryStatus', 'in', 'FAILED, BROKEN');
    expect(alertText(w).text()).toBe(parserMessage('deliveryStatus.in.(FAILED,BROKEN)'));
    expect(emitted(w)).toEqual([]);
  });

  it('clears the message once a good filter is added', async () => {
    const w = await filterBar();
    await addFilter(w, 'deliveryStatus', 'eq', 'BROKEN');
    expect(alertText(w).exists()).toBe(true);
    await valueInput(w).setValue('FAILED');
    await buttonNamed(w, 'Add filter').trigger('click');
    await flushPromises();
    expect(alertText(w).exists()).toBe(false);
    expect(emitted(w)).toEqual([['deliveryStatus.eq.FAILED']]);
  });

  it('does not add a filter that is already active', async () => {
    const w = await filterBar(['datasetName.ilike.*fx*']);
    await addFilter(w, 'datasetName', 'ilike', 'fx');
    await addFilter(w, 'datasetName', 'ilike', '*fx*');
    expect(emitted(w)).toEqual([]);
    expect(alertText(w).exists()).toBe(false);
  });

  it('shows each active filter as a tag; closing one asks for the others, in order', async () => {
    const active = ['datasetName.ilike.*fx*', 'deliveryStatus.in.(FAILED,MISSING)', 'supplierId.eq.acme'];
    const w = await filterBar(active);
    const tags = w.get('[aria-label="Active filters"]').findAll('[data-filter-tag]');
    expect(tags.map((tag) => tag.get('code').text())).toEqual(active);
    await tags[1]!.get(`button[aria-label="Remove filter ${tags[1]!.get('code').text()}"]`).trigger('click');
    expect(emitted(w)).toEqual([['datasetName.ilike.*fx*', 'supplierId.eq.acme']]);
  });

  it('"Clear filters" asks for no filters, and is there only when filters are active', async () => {
    const w = await filterBar(['datasetName.ilike.*fx*', 'supplierId.eq.acme']);
    await buttonNamed(w, 'Clear filters').trigger('click');
    expect(emitted(w)).toEqual([[]]);
    await w.setProps({ filters: [] });
    expect(w.findAll('button').filter((b) => b.text() === 'Clear filters')).toHaveLength(0);
  });
});
