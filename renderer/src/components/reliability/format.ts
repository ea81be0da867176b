/**
 * The Reliability figures as people read them (docs/architecture.md#reliability): rates as whole percentages that never
 * round to 0 % or 100 % unless they are, lateness as "+12 min", and the groups' names; the same in
 * the table, the chart's text summary and the dataset view's chart.
 */
import type {
  ReliabilityFigures,
  StatsGroup,
  StatsGroupBy,
  WeekFigures,
} from '../../../../shared/reliability';
import { duration } from '../../lib/time';

const percent = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 0 });

/** "95%"; "—" when there were no deliveries. 0.996 is "99%": "100%" means every one. */
export function rateText(rate: number | null): string {
  if (rate === null) return '—';
  const shown = rate > 0 && rate < 0.01 ? 0.01 : rate < 1 && rate > 0.99 ? 0.99 : rate;
  return percent.format(shown);
}

/** "+12 min", "on time" (no lateness), "—" (nothing delivered). */
export function latenessText(ms: number | null): string {
  if (ms === null) return '—';
  if (ms <= 0) return 'on time';
  return `+${duration(ms)}`;
}

/** "2 h 5 min"; "—" when no failure recovered in the window. */
export function recoveryText(ms: number | null): string {
  return ms === null ? '—' : duration(ms);
}

export const GROUP_LABELS: Record<StatsGroupBy, { one: string; many: string }> = {
  supplier: { one: 'supplier', many: 'suppliers' },
  dataset: { one: 'dataset', many: 'datasets' },
  dataProduct: { one: 'data product', many: 'data products' },
};

/** The group's name, else its key; the datasets without a product or supplier say so. */
export function groupName(group: Pick<StatsGroup, 'key' | 'name'>, groupBy: StatsGroupBy): string {
  if (group.name !== null && group.name !== '') return group.name;
  if (group.key !== '') return group.key;
  return groupBy === 'dataProduct' ? '(no data product)' : `(no ${GROUP_LABELS[groupBy].one})`;
}

/** A dataset group's supplier: its name, else its id; "—" when the remote named none. */
export function supplierText(group: Pick<StatsGroup, 'supplier'>): string {
  return group.supplier?.name || group.supplier?.id || '—';
}

/** "on time 18 of 20 deliveries in the last 30 days" — or that there were none. */
export function onTimeSentence(
  figures: Pick<ReliabilityFigures, 'deliveries' | 'onTime'>,
  days: number,
): string {
  if (figures.deliveries === 0) return `no deliveries in the last ${days} days`;
  const of = `${figures.deliveries.toLocaleString('en')} ${figures.deliveries === 1 ? 'delivery' : 'deliveries'}`;
  return `on time ${figures.onTime.toLocaleString('en')} of ${of} in the last ${days} days`;
}

/** "Nov 18": a week by its first day, in UTC (the weeks are UTC instants). */
const dayFormat = new Intl.DateTimeFormat('en', { day: 'numeric', month: 'short', timeZone: 'UTC' });
export function weekLabel(week: Pick<WeekFigures, 'start'>): string {
  return dayFormat.format(new Date(week.start));
}

/** One week in words, for the chart's tooltip and the table screen readers read. */
export function weekSentence(week: WeekFigures): string {
  if (week.deliveries === 0) return `week of ${weekLabel(week)}: no deliveries`;
  return [
    `week of ${weekLabel(week)}: ${rateText(week.onTimeRate)} on time`,
    `${week.onTime} on time, ${week.late} late, ${week.missing} missing, ${week.failed} failed`,
  ].join('; ');
}
