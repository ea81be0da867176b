/**
 * The Reliability view's selected group per org and grouping, kept for the window's life: back from a
 * group's datasets, the same row is selected and its chart shown (as the datasets table keeps its row).
 */
import { reactive } from 'vue';
import type { StatsGroupBy } from '../../../../shared/reliability';

const selected = reactive(new Map<string, string>());
const slot = (orgId: string, groupBy: StatsGroupBy): string => `${orgId}\u0000${groupBy}`;

export function selectedGroup(orgId: string, groupBy: StatsGroupBy): string | null {
  return selected.get(slot(orgId, groupBy)) ?? null;
}

export function selectGroup(orgId: string, groupBy: StatsGroupBy, key: string): void {
  selected.set(slot(orgId, groupBy), key);
}
