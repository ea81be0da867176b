/**
 * Cells the virtual tables (VirtualTable.vue) share. Text is cut with an ellipsis and whole on hover by
 * CSS and a title: naive-ui's measuring tooltips cost a layout per cell.
 */
import { h } from 'vue';

/** A cell's text cut with an ellipsis, whole on hover; "—" when there is none. */
export const clipped = (text: string | null) =>
  h('span', { class: 'clipped', title: text ?? '' }, text ?? '—');
