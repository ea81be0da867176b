/**
 * The Upcoming view's highlighted row (`datasetId|deadline`), kept while the view is left, so coming
 * back from a dataset (Esc) puts the keyboard where it was, as the datasets and triage views do.
 */
import { ref } from 'vue';

export const highlightedDeadline = ref<string | null>(null);
