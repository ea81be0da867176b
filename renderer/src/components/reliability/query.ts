/**
 * The Reliability view's state in its URL (`?groupBy=supplier|dataset|dataProduct&days=7|30|90&q=`), so
 * a reload or a shared link shows the same table (`q`: the groups whose name, key or supplier contains
 * it). A value the view does not know is said, naming what is allowed, and the default is shown instead
 * (nothing is guessed from it).
 */
import type { LocationQuery, LocationQueryRaw } from 'vue-router';
import {
  DEFAULT_STATS_DAYS,
  DEFAULT_STATS_GROUP_BY,
  STATS_DAYS,
  STATS_GROUPS,
  type StatsDays,
  type StatsGroup,
  type StatsGroupBy,
  statsDaysOf,
  statsGroupByOf,
} from '../../../../shared/reliability';

export interface ReliabilityViewState {
  groupBy: StatsGroupBy;
  days: StatsDays;
  /** Free text the groups' names and keys are searched for ('' = all). */
  search: string;
  /** What the link asked for that the view cannot show, in words; empty when the link is good. */
  problems: string[];
}

const first = (value: LocationQuery[string] | undefined): string | undefined => {
  const item = Array.isArray(value) ? value[0] : value;
  return typeof item === 'string' ? item : undefined;
};

export function reliabilityStateFromQuery(query: LocationQuery): ReliabilityViewState {
  const problems: string[] = [];
  const groupText = first(query.groupBy);
  let groupBy = DEFAULT_STATS_GROUP_BY;
  if (groupText !== undefined && groupText !== '') {
    const found = statsGroupByOf(groupText);
    if (found !== null) groupBy = found;
    else problems.push(`groupBy "${groupText}" is not one of ${STATS_GROUPS.join(', ')}`);
  }
  const daysText = first(query.days);
  let days = DEFAULT_STATS_DAYS;
  if (daysText !== undefined && daysText !== '') {
    const found = statsDaysOf(daysText);
    if (found !== null) days = found;
    else problems.push(`days "${daysText}" is not one of ${STATS_DAYS.join(', ')}`);
  }
  return { groupBy, days, search: (first(query.q) ?? '').trim(), problems };
}

/** Grouping and window always written (the URL says what the table shows); the search when there is one. */
export function reliabilityQuery(groupBy: StatsGroupBy, days: StatsDays, search = ''): LocationQueryRaw {
  return { groupBy, days: String(days), ...(search === '' ? {} : { q: search }) };
}

/**
 * The groups whose name, key or (per dataset) supplier contains every word of the search, any case, in
 * the engine's order.
 */
export function searchGroups<
  G extends { key: string; name: string | null; supplier?: StatsGroup['supplier'] },
>(groups: G[], search: string): G[] {
  const words = search
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '');
  if (words.length === 0) return groups;
  return groups.filter((group) => {
    const supplier = group.supplier ? `${group.supplier.name ?? ''} ${group.supplier.id ?? ''}` : '';
    const text = `${group.name ?? ''} ${group.key} ${supplier}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
}
