/**
 * A cell's text that gives way to its neighbours, yet can always be read whole: cut with an ellipsis,
 * shown whole on hover and while its row has the keyboard's focus (rows are the tables' Tab stops,
 * docs/accessibility.md). CSS alone (wholeText.css): nothing is measured per cell, the text is one node
 * (screen readers and search read it once), and a tooltip would not come for the keyboard.
 */
import { h } from 'vue';
import './wholeText.css';

/** `data`: attributes for the outer element (e.g. `data-dataset-name`). */
export function wholeText(text: string, data: Record<string, string> = {}) {
  return h('span', { class: 'whole-text', ...data }, [h('span', { class: 'whole-text__text' }, text)]);
}
