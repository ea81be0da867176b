/**
 * The keyboard of a virtualized table (VirtualTable.vue calls this with its `table`): `j`/`k` move
 * the highlighted row and scroll it into view, `Enter` opens it, and the table comes back scrolled to
 * it. The datasets, Upcoming and Reliability tables move alike; what a row is, how it is highlighted,
 * what opening it does and what else a row carries (a click, `aria-current`) are each table's. Where
 * the rows are Tab stops (docs/accessibility.md), focusing a row highlights it, Enter or Space on it
 * opens it, and the focus follows the highlight while it is on a row; elsewhere an element inside the
 * row (its link) holds the focus and always follows.
 */
import { nextTick, onMounted, ref } from 'vue';
import { useKeyboard } from '../lib/keyboard';

/** What the keyboard scrolls: the naive-ui table. */
export interface ScrollableTable {
  scrollTo(options: { index: number }): void;
}

export interface TableKeyboardOptions<Row> {
  rows: () => Row[];
  /** The highlighted row's index; -1 when no row is. */
  highlighted: () => number;
  highlight: (row: Row) => void;
  open: (row: Row) => void;
  /** The attribute that names a row on its `tr` (`data-dataset-id`), and a row's value of it. */
  rowAttribute: `data-${string}`;
  rowKey: (row: Row) => string;
  /**
   * `'row'`: the rows are Tab stops. Else the selector, inside the row, of the element that takes the
   * focus with the highlight (`a[data-dataset-link]`).
   */
  focus: 'row' | string;
  /** What else a row carries (a click, `aria-current`). */
  rowProps?: (row: Row, index: number) => Record<string, unknown>;
}

export function useTableKeyboard<Row>(options: TableKeyboardOptions<Row>) {
  const { rows, highlighted, highlight, open, rowAttribute, rowKey, focus, rowProps: more } = options;
  const table = ref<ScrollableTable | null>(null);

  const rowSelector = (key: string) => `tr[${rowAttribute}="${CSS.escape(key)}"]`;
  const focusable = (key: string) =>
    document.querySelector<HTMLElement>(focus === 'row' ? rowSelector(key) : `${rowSelector(key)} ${focus}`);

  onMounted(() => {
    if (highlighted() >= 0) table.value?.scrollTo({ index: highlighted() });
  });

  function move(by: number): void {
    const list = rows();
    if (list.length === 0) return;
    const index = Math.max(0, Math.min(list.length - 1, highlighted() + by));
    const row = list[index]!;
    highlight(row);
    table.value?.scrollTo({ index });
    // The keyboard's row holds the focus, so Tab, Enter and a screen reader stay on it; rows that are
    // Tab stops take it only from another row.
    if (focus !== 'row' || document.activeElement?.matches(`tr[${rowAttribute}]`)) {
      const key = rowKey(row);
      void nextTick(() => focusable(key)?.focus({ preventScroll: true }));
    }
  }

  useKeyboard({
    j: () => move(1),
    k: () => move(-1),
    Enter: () => {
      const row = rows()[highlighted()];
      if (!row) return false;
      open(row);
    },
  });

  /** A row's props: the highlight, its name, where rows are Tab stops focus and keys, and the table's own. */
  function rowProps(row: Row, index: number): Record<string, unknown> {
    const own = {
      class: index === highlighted() ? 'highlighted' : undefined,
      style: 'cursor: pointer',
      [rowAttribute]: rowKey(row),
    };
    if (focus !== 'row') return { ...own, ...more?.(row, index) };
    return {
      ...own,
      ...more?.(row, index),
      tabindex: 0,
      onFocus: () => highlight(row),
      onKeydown: (event: KeyboardEvent) => {
        if (event.target !== event.currentTarget || (event.key !== 'Enter' && event.key !== ' ')) return;
        // Handled here: the window's Enter (and Space's page scroll) must not act a second time.
        event.preventDefault();
        open(row);
      },
    };
  }

  return { table, rowProps };
}
