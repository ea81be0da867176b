/**
 * The Upcoming view's words and state (docs/architecture.md#deadlines): a dataset's habits as the rows and
 * the schedule card say them, the at-risk tooltip (the rule, then this dataset's reason), and the view's
 * URL (`?hours=1|6|24&supplier=&product=&risk=1&q=`) read back with what in it was not understood.
 * Pure functions, table-tested.
 */
import type { SelectOption } from 'naive-ui';
import type { LocationQuery, LocationQueryRaw } from 'vue-router';
import {
  AT_RISK_RULE,
  DEFAULT_UPCOMING_HOURS,
  type DeliveryHabits,
  UPCOMING_HOURS,
  type UpcomingDeadline,
} from '../../../../shared/upcoming';
import { duration } from '../../lib/time';

export type UpcomingHours = (typeof UPCOMING_HOURS)[number];

export interface UpcomingViewState {
  hours: UpcomingHours;
  /** A supplier id (its name when it has none); null: every supplier. */
  supplier: string | null;
  /** A data product's name; null: every product. */
  product: string | null;
  /** Only the deadlines at risk. */
  atRisk: boolean;
  /** Free text matched against dataset name and id, supplier and product (case-insensitive). */
  search: string;
}

/** "usually 12 min early", "+25 min late", "usually on time"; "—" when nothing was delivered yet. */
export function typicalDelivery(habits: DeliveryHabits): string {
  const ms = habits.typicalDeliveryMs;
  if (ms === null) return '—';
  if (Math.round(Math.abs(ms) / 60_000) === 0) return 'usually on time';
  return ms < 0 ? `usually ${duration(ms)} early` : `+${duration(ms)} late`;
}

/** "18/20 · 90%" (on time of the settled deliveries read); no rate below its minimum; "—" without any. */
export function onTimeText(habits: DeliveryHabits): string {
  if (habits.settled === 0) return '—';
  const count = `${habits.onTime}/${habits.settled}`;
  return habits.onTimeRate === null ? count : `${count} · ${Math.round(habits.onTimeRate * 100)}%`;
}

/** The at-risk tag's tooltip: the rule as the README states it, then why this dataset is at risk. */
export function riskTooltip(habits: DeliveryHabits): string {
  return `${AT_RISK_RULE} This dataset: ${habits.riskReason ?? 'not at risk'}.`;
}

/** "the next 6 hours", "the next hour". */
export function windowText(hours: number): string {
  return hours === 1 ? 'the next hour' : `the next ${hours} hours`;
}

/** A deadline's supplier as the filter knows it: its id, else its name; null when neither. */
export function supplierKey(deadline: UpcomingDeadline): string | null {
  return deadline.supplierId ?? deadline.supplierName;
}

const one = (value: LocationQuery[string] | undefined): string | null =>
  typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : null;

/** The view's state from its URL, and a sentence per value that was not understood (then ignored). */
export function upcomingStateFromQuery(query: LocationQuery): {
  state: UpcomingViewState;
  problems: string[];
} {
  const problems: string[] = [];
  const state: UpcomingViewState = {
    hours: DEFAULT_UPCOMING_HOURS,
    supplier: one(query.supplier) || null,
    product: one(query.product) || null,
    atRisk: false,
    search: (one(query.q) ?? '').trim(),
  };
  const hours = one(query.hours);
  if (hours !== null) {
    const offered = UPCOMING_HOURS.find((each) => String(each) === hours.trim());
    if (offered === undefined) {
      problems.push(
        `hours=${hours} is not offered: choose ${UPCOMING_HOURS.join(', ')} (showing the next ${DEFAULT_UPCOMING_HOURS} hours).`,
      );
    } else state.hours = offered;
  }
  const risk = one(query.risk);
  if (risk !== null) {
    if (risk === '1') state.atRisk = true;
    else if (risk !== '0')
      problems.push(`risk=${risk} is not understood: risk=1 shows only the deadlines at risk.`);
  }
  return { state, problems };
}

/** The URL for a state: defaults left out, so the plain link is the default view. */
export function upcomingStateToQuery(state: UpcomingViewState): LocationQueryRaw {
  return {
    hours: state.hours === DEFAULT_UPCOMING_HOURS ? undefined : String(state.hours),
    supplier: state.supplier ?? undefined,
    product: state.product ?? undefined,
    risk: state.atRisk ? '1' : undefined,
    q: state.search === '' ? undefined : state.search,
  };
}

/** Whether any filter (not the window) narrows the list. */
export function isFiltered(state: UpcomingViewState): boolean {
  return state.supplier !== null || state.product !== null || state.atRisk || state.search !== '';
}

/** The deadlines the filters keep, in the engine's order (soonest first). */
export function filterDeadlines(
  deadlines: readonly UpcomingDeadline[],
  state: UpcomingViewState,
): UpcomingDeadline[] {
  if (!isFiltered(state)) return deadlines as UpcomingDeadline[];
  const text = state.search.toLowerCase();
  return deadlines.filter(
    (deadline) =>
      (state.supplier === null || supplierKey(deadline) === state.supplier) &&
      (state.product === null || deadline.dataProductName === state.product) &&
      (!state.atRisk || deadline.habits.atRisk) &&
      (text === '' ||
        [
          deadline.datasetName,
          deadline.datasetId,
          deadline.supplierName,
          deadline.supplierId,
          deadline.dataProductName,
        ].some((field) => field !== null && field.toLowerCase().includes(text))),
  );
}

/** A choice of a filter's menu (naive-ui's option shape, label and value both text). */
export type FilterOption = SelectOption & { label: string; value: string };

/** The suppliers and products among the deadlines, by label; a chosen one not among them is kept. */
export function filterOptions(
  deadlines: readonly UpcomingDeadline[],
  state: UpcomingViewState,
): { suppliers: FilterOption[]; products: FilterOption[] } {
  const suppliers = new Map<string, string>();
  const products = new Set<string>();
  for (const deadline of deadlines) {
    const key = supplierKey(deadline);
    if (key !== null && !suppliers.has(key)) suppliers.set(key, deadline.supplierName ?? key);
    if (deadline.dataProductName !== null) products.add(deadline.dataProductName);
  }
  if (state.supplier !== null && !suppliers.has(state.supplier))
    suppliers.set(state.supplier, state.supplier);
  if (state.product !== null) products.add(state.product);
  const byLabel = (a: FilterOption, b: FilterOption) => a.label.localeCompare(b.label);
  return {
    suppliers: [...suppliers].map(([value, label]) => ({ label, value })).sort(byLabel),
    products: [...products].map((name) => ({ label: name, value: name })).sort(byLabel),
  };
}

/** A row's key: a dataset may have several deadlines in the window. */
export function deadlineKey(deadline: Pick<UpcomingDeadline, 'datasetId' | 'deadline'>): string {
  return `${deadline.datasetId}|${deadline.deadline}`;
}
