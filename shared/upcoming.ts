/**
 * The deadline clock's answers (docs/architecture.md#deadlines): the deadlines of the next hours with each dataset's
 * delivery habits and the *at risk* mark, and the deadlines that passed while the mirror was stale
 * (overdue, unverified). Shared by the engine, the window, the CLI and `/local/v1/upcoming`.
 */

/** How many of a dataset's newest deliveries its habits are read from. */
export const HABIT_DELIVERIES = 20;
/** Below this on-time rate over those deliveries, the next deadline is at risk. */
export const AT_RISK_ON_TIME_RATE = 0.8;
/** With fewer settled deliveries than this there is no rate to judge by (never at risk by rate). */
export const HABIT_MIN_SETTLED = 3;
/** The windows the Upcoming view offers; the API takes any whole number of hours in 1–168. */
export const UPCOMING_HOURS = [1, 6, 24] as const;
export const DEFAULT_UPCOMING_HOURS = 6;
export const MAX_UPCOMING_HOURS = 168;
/** At most this many deadlines in one answer (soonest kept; `truncated` says so). */
export const MAX_UPCOMING_DEADLINES = 10_000;

/** The rule, in the words the README and the row's tooltip use: a person can check it by hand. */
export const AT_RISK_RULE =
  `At risk: fewer than ${AT_RISK_ON_TIME_RATE * 100}% of its last ${HABIT_DELIVERIES} settled deliveries ` +
  `were on time (HEALTHY), counted once it has at least ${HABIT_MIN_SETTLED}, or its latest settled ` +
  'delivery was MISSING or FAILED.';

/** A dataset's delivery habits from its last HABIT_DELIVERIES settled deliveries. */
export interface DeliveryHabits {
  /** Settled deliveries read (HEALTHY, DELIVERED_LATE, MISSING, FAILED), at most HABIT_DELIVERIES. */
  settled: number;
  /** Of those, HEALTHY. */
  onTime: number;
  /** onTime / settled; null below HABIT_MIN_SETTLED. */
  onTimeRate: number | null;
  /** Median of delivered − deadline (ms; negative = early) over those that were delivered; null: none. */
  typicalDeliveryMs: number | null;
  /** Status of the newest settled delivery. */
  latestStatus: string | null;
  atRisk: boolean;
  /** Why it is at risk, in words ("11 of its last 20 deliveries on time (55%)"); null when not. */
  riskReason: string | null;
}

/** One deadline ahead. */
export interface UpcomingDeadline {
  datasetId: string;
  datasetName: string | null;
  supplierId: string | null;
  supplierName: string | null;
  dataProductName: string | null;
  /** The deadline, RFC 3339 UTC (`…Z`). */
  deadline: string;
  /** The dataset's IANA zone, "UTC" when its config names none. */
  timeZone: string;
  /** The dataset's current latestDeliveryStatus. */
  status: string | null;
  habits: DeliveryHabits;
}

export interface UpcomingDeadlines {
  orgId: string;
  hours: number;
  /** The window (from, to], RFC 3339. */
  from: string;
  to: string;
  /** Soonest first, then by dataset id. */
  deadlines: UpcomingDeadline[];
  /** All deadlines in the window (more than `deadlines` when truncated; a schedule counts at most 10,000). */
  total: number;
  truncated: boolean;
  /** Datasets whose schedule cannot be read (they have no deadlines here; the dataset view says why). */
  invalidSchedules: number;
}

/** A dataset with deadlines that passed after its source's last successful sync, while stale. */
export interface OverdueDataset {
  datasetId: string;
  datasetName: string | null;
  /** How many of its deadlines passed since (at least 1). */
  deadlines: number;
  /** The oldest of them, RFC 3339 UTC. */
  since: string;
}

/** The org's overdue (unverified) datasets: empty unless its data is stale. */
export interface OverdueSummary {
  orgId: string;
  /** Whether the org's data is stale now (no source synced within three poll intervals). */
  stale: boolean;
  /** The last successful sync of the org, RFC 3339; null: never. */
  lastSuccessAt: string | null;
  datasets: OverdueDataset[];
  /** Deadlines passed since the last successful sync, over all datasets. */
  deadlines: number;
}

/** "3 deadlines passed since the last sync" (the tray tooltip, chips and banner say it alike). */
export function overdueText(deadlines: number): string {
  return `${deadlines.toLocaleString('en-US')} deadline${deadlines === 1 ? '' : 's'} passed since the last sync`;
}
