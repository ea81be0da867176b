/**
 * The Reliability view's selected group per org and grouping, kept in the window's pinia for its life:
 * back from a group's datasets, the same row is selected and its chart shown (as the datasets table
 * keeps its highlighted row).
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { StatsGroupBy } from '../../../shared/reliability';

const slot = (orgId: string, groupBy: StatsGroupBy): string => `${orgId}\u0000${groupBy}`;

export const useReliabilityState = defineStore('reliabilitySelection', () => {
  const selected = ref<Record<string, string>>({});
  return {
    selected,
    keyOf: (orgId: string, groupBy: StatsGroupBy): string | null =>
      selected.value[slot(orgId, groupBy)] ?? null,
    select(orgId: string, groupBy: StatsGroupBy, key: string): void {
      selected.value = { ...selected.value, [slot(orgId, groupBy)]: key };
    },
  };
});
