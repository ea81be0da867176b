/**
 * The shift handoff (docs/decisions.md "Handoff"): what happened to an org since a time and what the next
 * person must watch. The engine assembles the report (electron/knowledge/handoff.ts); this file holds its
 * shape, shared so the window, the CLI and `/local/v1/handoff` read the same report. Its Markdown is in
 * handoffMarkdown.ts, the `since` it starts from in handoffSince.ts.
 */
import type { AcknowledgementView } from './causes';
import type { SnoozeView } from './views';
import type { UpcomingDeadline } from './upcoming';

/** How far ahead the handoff lists at-risk deadlines. */
export const HANDOFF_AT_RISK_HOURS = 8;

/** Rows of each section the window draws (and asks for) first; "Show all" the rest. */
export const HANDOFF_FIRST_ROWS = 100;

/** Who a line is about. */
export interface HandoffDataset {
  datasetId: string;
  datasetName: string | null;
  supplierId: string | null;
  supplierName: string | null;
  dataProductName: string | null;
}

/** A note written on one of the dataset's acknowledgements within the window. */
export interface HandoffNote {
  /** RFC 3339 UTC. */
  at: string;
  by: string | null;
  text: string;
}

/** A FAILED or MISSING dataset now, with its incident and who owns it. */
export interface HandoffTrouble extends HandoffDataset {
  status: string;
  deliveryId: string | null;
  /** Its failure time (shared/causes.ts CauseDataset.since), RFC 3339 UTC: never after generatedAt. */
  since: string;
  /** Whether it failed within the window. */
  isNew: boolean;
  incidentId: string;
  causeId: string;
  causeTitle: string;
  message: string | null;
  /** The acknowledgement that holds now; null: nobody on it. */
  acknowledgement: AcknowledgementView | null;
  /** The window's other acknowledgement notes (earlier, withdrawn or ended ones), oldest first. */
  notes: HandoffNote[];
}

/** A dataset whose trouble ended within the window and that is neither FAILED nor MISSING now. */
export interface HandoffRecovery extends HandoffDataset {
  /** The troubled status it left. */
  was: string;
  /** Its status now. */
  status: string;
  /**
   * When it left that status: the next delivery's time, never after the mirror learned of it, RFC 3339
   * UTC, within the window.
   */
  recoveredAt: string;
}

/** An overdue (unverified) dataset, with its names. */
export interface HandoffOverdueDataset extends HandoffDataset {
  deadlines: number;
  /** The oldest passed deadline, RFC 3339 UTC. */
  since: string;
}

/** Overdue (unverified) as the sync's state tells it; `known: false` when no running instance can tell. */
export interface HandoffOverdue {
  known: boolean;
  stale: boolean;
  lastSuccessAt: string | null;
  deadlines: number;
  datasets: HandoffOverdueDataset[];
}

/** A sync outage of the org that overlaps the window. */
export interface HandoffOutage {
  sourceId: string;
  sourceName: string;
  lostAt: string;
  /** null: not regained yet. */
  regainedAt: string | null;
  lastSuccessAt: string | null;
  /** From an imported snapshot (another machine's contact with its source). */
  imported: boolean;
}

/** How many of each section lists; the Markdown's summary line says the same. */
export interface HandoffSummary {
  newlyFailed: number;
  recovered: number;
  stillFailing: number;
  missing: number;
  /** Overdue (unverified) datasets; null when not known here (no running instance syncs the org). */
  overdue: number | null;
  snoozed: number;
  /** Datasets with at-risk deadlines in the next HANDOFF_AT_RISK_HOURS (a dataset's several count once). */
  atRisk: number;
  outages: number;
}

/** The report; its JSON is what the CLI and the API print (stable keys, RFC 3339 UTC times). */
export interface HandoffReport {
  orgId: string;
  orgName: string;
  /** The window [since, generatedAt]. */
  since: string;
  generatedAt: string;
  /** At-risk deadlines are those in (generatedAt, atRiskUntil]. */
  atRiskUntil: string;
  summary: HandoffSummary;
  /** FAILED now, failed within the window; newest first (by since, then dataset id). */
  newlyFailed: HandoffTrouble[];
  /** Recovered within the window; newest first (by recoveredAt, then dataset id). */
  recovered: HandoffRecovery[];
  /** FAILED now, failed before the window; newest first. */
  stillFailing: HandoffTrouble[];
  /** MISSING now; newest first. */
  missing: HandoffTrouble[];
  /** Its datasets newest first (by their oldest passed deadline). */
  overdue: HandoffOverdue;
  /** Snoozes in force now, newest first (by when set). */
  snoozed: SnoozeView[];
  /** At-risk deadlines of the next HANDOFF_AT_RISK_HOURS, soonest first (what comes next, first). */
  atRisk: UpcomingDeadline[];
  /** Newest first (by lostAt, then source id). */
  outages: HandoffOutage[];
}

/** At-risk deadlines one line per dataset (an hourly dataset is not eight lines), soonest first. */
export function atRiskByDataset(
  deadlines: readonly UpcomingDeadline[],
): { first: UpcomingDeadline; more: number }[] {
  const byDataset = new Map<string, { first: UpcomingDeadline; more: number }>();
  for (const deadline of deadlines) {
    const seen = byDataset.get(deadline.datasetId);
    if (seen === undefined) byDataset.set(deadline.datasetId, { first: deadline, more: 0 });
    else seen.more += 1;
  }
  return [...byDataset.values()];
}

/**
 * The report with each list of datasets cut to its first `rows` datasets (the at-risk deadlines of its
 * first `rows` datasets, so each keeps its "more"), the summary still counting them all: what the window
 * draws first. At 100k datasets the whole report is 8 MiB (thousands still failing, ten thousand
 * deadlines at risk) for a first screen of a hundred rows a section.
 */
export function handoffFirstRows(report: HandoffReport, rows: number): HandoffReport {
  const firstDatasets = new Set(
    atRiskByDataset(report.atRisk)
      .slice(0, rows)
      .map(({ first }) => first.datasetId),
  );
  return {
    ...report,
    newlyFailed: report.newlyFailed.slice(0, rows),
    recovered: report.recovered.slice(0, rows),
    stillFailing: report.stillFailing.slice(0, rows),
    missing: report.missing.slice(0, rows),
    overdue: { ...report.overdue, datasets: report.overdue.datasets.slice(0, rows) },
    snoozed: report.snoozed.slice(0, rows),
    atRisk: report.atRisk.filter((deadline) => firstDatasets.has(deadline.datasetId)),
  };
}

/** Whether `report` lists every dataset its summary counts (not cut by `handoffFirstRows`). */
export function isWholeHandoff(report: HandoffReport): boolean {
  const { summary } = report;
  return (
    report.newlyFailed.length === summary.newlyFailed &&
    report.recovered.length === summary.recovered &&
    report.stillFailing.length === summary.stillFailing &&
    report.missing.length === summary.missing &&
    report.overdue.datasets.length === (summary.overdue ?? 0) &&
    report.snoozed.length === summary.snoozed &&
    atRiskByDataset(report.atRisk).length === summary.atRisk
  );
}
