/**
 * The Reliability view's state in its URL (`?groupBy=supplier|dataset|dataProduct&days=7|30|90`), so a
 * reload or a shared link shows the same table. A value the view does not know is said, naming what is
 * allowed, and the default is shown instead (nothing is guessed from it).
 */
import type { LocationQuery, LocationQueryRaw } from 'vue-router';
import {
  DEFAULT_STATS_DAYS,
  DEFAULT_STATS_GROUP_BY,
  STATS_DAYS,
  STATS_GROUPS,
  type StatsDays,
  type StatsGroupBy,
} from '../../../../shared/reliability';

export interface ReliabilityViewState {
  groupBy: StatsGroupBy;
  days: StatsDays;
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
    if ((STATS_GROUPS as readonly string[]).includes(groupText)) groupBy = groupText as StatsGroupBy;
    else problems.push(`groupBy "${groupText}" is not one of ${STATS_GROUPS.join(', ')}`);
  }
  const daysText = first(query.days);
  let days = DEFAULT_STATS_DAYS;
  if (daysText !== undefined && daysText !== '') {
    const found = STATS_DAYS.find((allowed) => String(allowed) === daysText);
    if (found !== undefined) days = found;
    else problems.push(`days "${daysText}" is not one of ${STATS_DAYS.join(', ')}`);
  }
  return { groupBy, days, problems };
}

/** Both always written: the URL says what the table shows. */
export function reliabilityQuery(groupBy: StatsGroupBy, days: StatsDays): LocationQueryRaw {
  return { groupBy, days: String(days) };
}
