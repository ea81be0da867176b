/**
 * Reliability statistics (docs/architecture.md#reliability): per dataset, supplier or data product over the last 7, 30 or
 * 90 days, from all retained history, with weekly trends. Shared by the engine (which precomputes
 * them), the window's Reliability view and dataset chart, and `/local/v1/stats`.
 */

export const STATS_GROUPS = ['dataset', 'supplier', 'dataProduct'] as const;
export type StatsGroupBy = (typeof STATS_GROUPS)[number];
/** What the Reliability view and `/local/v1/stats` show first (the engine precomputes it after each sync). */
export const DEFAULT_STATS_GROUP_BY: StatsGroupBy = 'supplier';
export const STATS_DAYS = [7, 30, 90] as const;
export type StatsDays = (typeof STATS_DAYS)[number];
export const DEFAULT_STATS_DAYS: StatsDays = 30;

/** The grouping a text names (`/local/v1/stats?groupBy=`, the view's URL), or null. */
export const statsGroupByOf = (text: string): StatsGroupBy | null =>
  STATS_GROUPS.find((group) => group === text) ?? null;
/** The window a text names (`7`, `30`, `90`), or null. */
export const statsDaysOf = (text: string): StatsDays | null =>
  STATS_DAYS.find((allowed) => String(allowed) === text) ?? null;

/** How the deliveries whose deadline falls in a window (or a week of it) ended. */
interface DeliveryCounts {
  /** Settled deliveries (HEALTHY, DELIVERED_LATE, MISSING, FAILED); IN_PROGRESS ones wait. */
  deliveries: number;
  onTime: number;
  late: number;
  missing: number;
  failed: number;
  /** onTime / deliveries; null when there are none. */
  onTimeRate: number | null;
}

/** Counts and rates over the deliveries whose deadline falls in a window. */
export interface ReliabilityFigures extends DeliveryCounts {
  /** Each other count / deliveries; null when there are none. */
  lateRate: number | null;
  missingRate: number | null;
  failedRate: number | null;
  /** Lateness (delivered − deadline, 0 when on time) over the delivered ones, ms; null: none delivered. */
  medianLatenessMs: number | null;
  p90LatenessMs: number | null;
  /** FAILED → next HEALTHY episodes that ended in the window, and their median length (ms). */
  recoveries: number;
  medianTimeToRecoverMs: number | null;
}

/** One week of a trend (weeks end at the window's end: the newest is the last 7 days). */
export interface WeekFigures extends DeliveryCounts {
  /** [start, end), RFC 3339 UTC. */
  start: string;
  end: string;
}

export interface StatsGroup {
  /** The dataset id, supplier id or data product name ("" when the datasets name none). */
  key: string;
  /** What people call it (dataset or supplier name; the product's name); null when unknown. */
  name: string | null;
  /**
   * Per dataset: its supplier, which tells datasets of one name apart (its id and name, each null when
   * the remote gave none); null for the other groupings.
   */
  supplier: { id: string | null; name: string | null } | null;
  datasets: number;
  figures: ReliabilityFigures;
  /** Oldest first. */
  weeks: WeekFigures[];
}

export interface ReliabilityStats {
  orgId: string;
  groupBy: StatsGroupBy;
  days: StatsDays;
  /** The window [from, to), RFC 3339 UTC. */
  from: string;
  to: string;
  /** Worst first: lowest on-time rate, then most deliveries, then key; groups without deliveries last. */
  groups: StatsGroup[];
}
