/**
 * The shift handoff (docs/decisions.md "Handoff"): what happened to an org in a window and what to watch
 * next, by failure and recovery *times* (true on a first sync, after an import, after a week offline),
 * assembled from what the mirror keeps — the incidents of its FAILED and MISSING datasets now, the
 * recoveries its history shows, acknowledgement notes, snoozes, sync outages, and the on-call layer's
 * overdue and at-risk answers. Reading (`readHandoffFacts`) is apart from deciding
 * (`assembleHandoff`, pure), so the rules are tested on constructed facts as well as on a real store.
 */
import type { CauseDataset, Incident } from '../../shared/causes';
import {
  HANDOFF_AT_RISK_HOURS,
  atRiskByDataset,
  type HandoffDataset,
  type HandoffNote,
  type HandoffOutage,
  type HandoffOverdue,
  type HandoffRecovery,
  type HandoffReport,
  type HandoffTrouble,
} from '../../shared/handoff';
import type { SnoozeView } from '../../shared/views';
import type { OverdueSummary, UpcomingDeadline } from '../../shared/upcoming';
import { type DatasetNames, listIncidents, parsedCause } from '../query/incidents';
import {
  type HistoryRecovery,
  readHandoffWindow,
  readRecoveriesLearned,
  type StatusEntry,
} from '../query/handoff';
import type { DatasetFacts } from '../query/history';
import type { Store } from '../store/database';
import { getOrg } from '../store/tables/orgs';
import type { OrgHistory } from './orgHistory';
import { datedRecoveries, reportedRecoveries } from './recoveries';
import { listSnoozes } from '../store/tables/snoozes';

const TROUBLED = new Set(['FAILED', 'MISSING']);

/** Everything the report is decided from. */
export interface HandoffFacts {
  orgId: string;
  orgName: string;
  /** Epoch ms: the window is [since, now]. */
  since: number;
  now: number;
  /** The org's datasets now, by id (a Map, or the history's look-up). */
  datasets: { get(datasetId: string): DatasetFacts | undefined };
  /** The org's live incidents (every FAILED and MISSING dataset, with its failure time and acknowledgement). */
  incidents: readonly Incident[];
  /**
   * The recovered datasets' last recovery as the stored history shows it: those that may fall in the
   * window, and those of the datasets the timeline's recoveries name, wherever they fall.
   */
  recoveries: readonly HistoryRecovery[];
  /**
   * Of the datasets with entries in the window (the first of them from a status), the troubled ones'
   * status when it began.
   */
  statusAtStart: ReadonlyMap<string, string | null>;
  /** Status entries within the window, oldest first. */
  entries: readonly StatusEntry[];
  /** Acknowledgement notes within the window, oldest first. */
  notes: readonly (HandoffNote & { datasetId: string })[];
  /** null: the sources' states are not known here (no running instance). */
  overdue: OverdueSummary | null;
  snoozes: readonly SnoozeView[];
  /** Deadlines of the next HANDOFF_AT_RISK_HOURS, soonest first (the at-risk ones are kept). */
  upcoming: readonly UpcomingDeadline[];
  outages: readonly HandoffOutage[];
}

const iso = (ms: number) => new Date(ms).toISOString();
const byId = (a: { datasetId: string }, b: { datasetId: string }) =>
  a.datasetId < b.datasetId ? -1 : a.datasetId > b.datasetId ? 1 : 0;
/** Newest first, then by dataset id. */
const bySince = (a: HandoffTrouble, b: HandoffTrouble) => b.since.localeCompare(a.since) || byId(a, b);

function namesOf(datasetId: string, facts: DatasetFacts | undefined): HandoffDataset {
  return {
    datasetId,
    datasetName: facts?.name ?? null,
    supplierId: facts?.supplierId ?? null,
    supplierName: facts?.supplierName ?? null,
    dataProductName: facts?.dataProductName ?? null,
  };
}

/** The window's notes by dataset, read once. */
interface WindowIndex {
  notes: Map<string, (HandoffNote & { datasetId: string })[]>;
}

function windowIndex(notes: readonly (HandoffNote & { datasetId: string })[]): WindowIndex {
  const index: WindowIndex = { notes: new Map() };
  for (const note of notes) {
    const own = index.notes.get(note.datasetId);
    if (own === undefined) index.notes.set(note.datasetId, [note]);
    else own.push(note);
  }
  return index;
}

function troubleOf(
  incident: Incident,
  dataset: CauseDataset,
  since: number,
  inWindow: WindowIndex,
): HandoffTrouble {
  const ack = dataset.acknowledgement;
  return {
    datasetId: dataset.datasetId,
    datasetName: dataset.datasetName,
    supplierId: dataset.supplierId,
    supplierName: dataset.supplierName,
    dataProductName: dataset.dataProductName,
    status: dataset.status,
    deliveryId: dataset.deliveryId,
    since: dataset.since,
    // Failed within the window, whatever this mirror saw before (its failure time, not a sighting).
    isNew: Date.parse(dataset.since) >= since,
    incidentId: incident.incidentId,
    causeId: incident.causeId,
    causeTitle: incident.title,
    message: dataset.message,
    acknowledgement: dataset.acknowledgement,
    // The holding acknowledgement's note is shown with it; these are the window's other notes.
    notes: (inWindow.notes.get(dataset.datasetId) ?? [])
      .filter(
        (note) => !(ack !== null && note.at === new Date(ack.at).toISOString() && note.text === ack.note),
      )
      .map(({ at, by, text }) => ({ at, by, text })),
  };
}

/**
 * What the timeline alone shows recovered: FAILED or MISSING when the window began or at an entry
 * within it, and neither now (a dataset the remote removed is not a recovery: it is gone), at the entry
 * that left the last troubled status. The history's recoveries (with their true times) come first; these
 * add what history cannot show (a MISSING delivery the remote later rewrote as late).
 */
function timelineRecoveries(facts: HandoffFacts): Map<string, { was: string; recoveredAt: string }> {
  const last = new Map<string, { was: string; leftAt: number | null }>();
  for (const [datasetId, status] of facts.statusAtStart)
    if (status !== null && TROUBLED.has(status)) last.set(datasetId, { was: status, leftAt: null });
  for (const entry of facts.entries) {
    if (entry.to !== null && TROUBLED.has(entry.to))
      last.set(entry.datasetId, { was: entry.to, leftAt: null });
    else {
      const held = last.get(entry.datasetId);
      if (held !== undefined && held.leftAt === null) held.leftAt = entry.at;
    }
  }
  const found = new Map<string, { was: string; recoveredAt: string }>();
  for (const [datasetId, { was, leftAt }] of last)
    if (leftAt !== null) found.set(datasetId, { was, recoveredAt: iso(leftAt) });
  return found;
}

/**
 * Recovered in the window, newest first: by the history where it shows the dataset's last trouble (a
 * recovery it dates before the window is not one of the window's, whenever the mirror learned of it),
 * else by the timeline.
 */
function recoveriesOf(facts: HandoffFacts): HandoffRecovery[] {
  const found = timelineRecoveries(facts);
  for (const recovery of facts.recoveries)
    found.set(recovery.datasetId, { was: recovery.was, recoveredAt: recovery.recoveredAt });
  const recovered: HandoffRecovery[] = [];
  for (const [datasetId, { was, recoveredAt }] of found) {
    const at = Date.parse(recoveredAt);
    if (at < facts.since || at > facts.now) continue;
    const dataset = facts.datasets.get(datasetId);
    if (dataset === undefined || dataset.status === null || TROUBLED.has(dataset.status)) continue;
    recovered.push({ ...namesOf(datasetId, dataset), was, status: dataset.status, recoveredAt });
  }
  return recovered.sort((a, b) => b.recoveredAt.localeCompare(a.recoveredAt) || byId(a, b));
}

function overdueOf(facts: HandoffFacts): HandoffOverdue {
  if (facts.overdue === null)
    return { known: false, stale: false, lastSuccessAt: null, deadlines: 0, datasets: [] };
  return {
    known: true,
    stale: facts.overdue.stale,
    lastSuccessAt: facts.overdue.lastSuccessAt,
    deadlines: facts.overdue.deadlines,
    datasets: facts.overdue.datasets
      .map((overdue) => ({
        ...namesOf(overdue.datasetId, facts.datasets.get(overdue.datasetId)),
        deadlines: overdue.deadlines,
        since: overdue.since,
      }))
      .sort((a, b) => b.since.localeCompare(a.since) || byId(a, b)),
  };
}

/** The report, decided from the facts alone (same facts, same report). */
export function assembleHandoff(facts: HandoffFacts): HandoffReport {
  const inWindow = windowIndex(facts.notes);
  const troubles = facts.incidents.flatMap((incident) =>
    incident.datasets.map((dataset) => troubleOf(incident, dataset, facts.since, inWindow)),
  );
  const failed = troubles.filter((trouble) => trouble.status === 'FAILED').sort(bySince);
  const newlyFailed = failed.filter((trouble) => trouble.isNew);
  const stillFailing = failed.filter((trouble) => !trouble.isNew);
  const missing = troubles.filter((trouble) => trouble.status === 'MISSING').sort(bySince);
  const recovered = recoveriesOf(facts);
  const overdue = overdueOf(facts);
  const snoozed = [...facts.snoozes].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || byId(a, b));
  const atRisk = facts.upcoming.filter((deadline) => deadline.habits.atRisk);
  const outages = [...facts.outages].sort(
    (a, b) => b.lostAt.localeCompare(a.lostAt) || a.sourceId.localeCompare(b.sourceId),
  );
  return {
    orgId: facts.orgId,
    orgName: facts.orgName,
    since: iso(facts.since),
    generatedAt: iso(facts.now),
    atRiskUntil: iso(facts.now + HANDOFF_AT_RISK_HOURS * 3_600_000),
    summary: {
      newlyFailed: newlyFailed.length,
      recovered: recovered.length,
      stillFailing: stillFailing.length,
      missing: missing.length,
      overdue: overdue.known ? overdue.datasets.length : null,
      snoozed: snoozed.length,
      atRisk: atRiskByDataset(atRisk).length,
      outages: outages.length,
    },
    newlyFailed,
    recovered,
    stillFailing,
    missing,
    overdue,
    snoozed,
    atRisk,
    outages,
  };
}

/**
 * What the store holds for the window: incidents, recoveries, timeline, snoozes, outages (call when the
 * store is readable). The recoveries come from `history`, the org's history as the on-call layer holds it.
 */
export function readStoredFacts(
  store: Store,
  orgId: string,
  since: number,
  now: number,
  history: OrgHistory,
  /** false: the troubles without names and messages (see `withTroubleDetails`). */
  details = true,
): Pick<
  HandoffFacts,
  'orgName' | 'incidents' | 'recoveries' | 'statusAtStart' | 'entries' | 'notes' | 'snoozes' | 'outages'
> {
  const window = readHandoffWindow(store, orgId, since, now);
  // The timeline's recoveries (timelineRecoveries) are of datasets troubled when the window began or by
  // an entry in it: the history's word on them overrules theirs wherever it dates them.
  const timelined = new Set(window.statusAtStart.keys());
  for (const entry of window.entries)
    if (entry.to !== null && TROUBLED.has(entry.to)) timelined.add(entry.datasetId);
  const reported = reportedRecoveries(history, since, timelined);
  const mayBeInWindow = reported.filter(({ reportedAt }) => !(reportedAt < since));
  const learned = readRecoveriesLearned(
    store,
    orgId,
    mayBeInWindow.map(({ datasetId }) => datasetId),
  );
  return {
    orgName: getOrg(store, orgId)?.name ?? orgId,
    incidents: listIncidents(store, orgId, { details }),
    recoveries: datedRecoveries(reported, learned, now),
    ...window,
    snoozes: listSnoozes(store, orgId, new Date(now)),
  };
}

/**
 * The troubles of `report` (assembled from incidents read without details) given their names and
 * messages (a failed cause's first failed task's), as the store holds them: done for the first rows
 * the window shows, where reading them for every trouble took most of a 100k handoff.
 */
export function withTroubleDetails(
  report: HandoffReport,
  names: ReadonlyMap<string, DatasetNames>,
  messages: ReadonlyMap<string, string>,
): HandoffReport {
  const detailed = (trouble: HandoffTrouble): HandoffTrouble => {
    const named = names.get(trouble.datasetId);
    return {
      ...trouble,
      datasetName: named?.datasetName ?? null,
      supplierId: named?.supplierId ?? null,
      supplierName: named?.supplierName ?? null,
      dataProductName: named?.dataProductName ?? null,
      message:
        trouble.deliveryId !== null && parsedCause(trouble.causeId).kind === 'failed'
          ? (messages.get(trouble.deliveryId) ?? null)
          : null,
    };
  };
  return {
    ...report,
    newlyFailed: report.newlyFailed.map(detailed),
    stillFailing: report.stillFailing.map(detailed),
    missing: report.missing.map(detailed),
  };
}
