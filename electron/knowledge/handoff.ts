/**
 * The shift handoff (DESIGN.md §11): what happened to an org in a window and what to watch next,
 * assembled from what the mirror already keeps — the causes of its FAILED and MISSING datasets now,
 * their timeline (status entries and acknowledgement notes), snoozes, sync outages, and the on-call
 * layer's overdue and at-risk answers. Reading (`readHandoffFacts`) is apart from deciding
 * (`assembleHandoff`, pure), so the rules are tested on constructed facts as well as on a real store.
 */
import type { Cause, CauseDataset } from '../../shared/causes';
import {
  HANDOFF_AT_RISK_HOURS,
  type HandoffDataset,
  type HandoffNote,
  type HandoffOutage,
  type HandoffOverdue,
  type HandoffRecovery,
  type HandoffReport,
  type HandoffTrouble,
} from '../../shared/handoff';
import type { SnoozeView } from '../../shared/rpc';
import type { OverdueSummary, UpcomingDeadline } from '../../shared/upcoming';
import { listCauses } from '../query/causes';
import { readHandoffWindow, type StatusEntry } from '../query/handoff';
import type { DatasetFacts } from '../query/history';
import type { Store } from '../store/database';
import { getOrg } from '../store/orgs';
import { listSnoozes } from '../store/snoozes';

const TROUBLED = new Set(['FAILED', 'MISSING']);

/** Everything the report is decided from. */
export interface HandoffFacts {
  orgId: string;
  orgName: string;
  /** Epoch ms: the window is [since, now]. */
  since: number;
  now: number;
  /** The org's datasets now, by id. */
  datasets: ReadonlyMap<string, DatasetFacts>;
  /** The org's causes now (every FAILED and MISSING dataset, with its acknowledgement). */
  causes: readonly Cause[];
  /** The troubled datasets' status when the window began (their newest status entry before it). */
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
/** Oldest first (unknown last), then by dataset id. */
const bySince = (a: HandoffTrouble, b: HandoffTrouble) =>
  (a.since === null ? 1 : 0) - (b.since === null ? 1 : 0) ||
  (a.since ?? '').localeCompare(b.since ?? '') ||
  byId(a, b);

function namesOf(datasetId: string, facts: DatasetFacts | undefined): HandoffDataset {
  return {
    datasetId,
    datasetName: facts?.name ?? null,
    supplierId: facts?.supplierId ?? null,
    supplierName: facts?.supplierName ?? null,
    dataProductName: facts?.dataProductName ?? null,
  };
}

/** The window's entries and notes by dataset, read once (a long window of a large org has 10⁵ entries). */
interface WindowIndex {
  /** `datasetId\nstatus` of every status entry in the window. */
  entered: Set<string>;
  notes: Map<string, (HandoffNote & { datasetId: string })[]>;
}

function windowIndex(
  entries: readonly StatusEntry[],
  notes: readonly (HandoffNote & { datasetId: string })[],
): WindowIndex {
  const index: WindowIndex = { entered: new Set(), notes: new Map() };
  for (const entry of entries) index.entered.add(`${entry.datasetId}\n${entry.to}`);
  for (const note of notes) {
    const own = index.notes.get(note.datasetId);
    if (own === undefined) index.notes.set(note.datasetId, [note]);
    else own.push(note);
  }
  return index;
}

function troubleOf(cause: Cause, dataset: CauseDataset, inWindow: WindowIndex): HandoffTrouble {
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
    // Entered this status in the window: a first sighting, a change, or another failed delivery.
    isNew: inWindow.entered.has(`${dataset.datasetId}\n${dataset.status}`),
    causeId: cause.causeId,
    causeTitle: cause.title,
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
 * Recovered: FAILED or MISSING when the window began or at an entry within it, and neither now (a
 * dataset the remote removed is not a recovery: it is gone). `recoveredAt`: the entry that left the
 * last troubled status.
 */
function recoveriesOf(facts: HandoffFacts): HandoffRecovery[] {
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
  const recovered: HandoffRecovery[] = [];
  for (const [datasetId, { was, leftAt }] of last) {
    const dataset = facts.datasets.get(datasetId);
    if (dataset === undefined || dataset.status === null || TROUBLED.has(dataset.status)) continue;
    recovered.push({
      ...namesOf(datasetId, dataset),
      was,
      status: dataset.status,
      recoveredAt: leftAt === null ? null : iso(leftAt),
    });
  }
  return recovered.sort(
    (a, b) =>
      (a.recoveredAt === null ? 1 : 0) - (b.recoveredAt === null ? 1 : 0) ||
      (a.recoveredAt ?? '').localeCompare(b.recoveredAt ?? '') ||
      byId(a, b),
  );
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
      .sort((a, b) => a.since.localeCompare(b.since) || byId(a, b)),
  };
}

/** The report, decided from the facts alone (same facts, same report). */
export function assembleHandoff(facts: HandoffFacts): HandoffReport {
  const inWindow = windowIndex(facts.entries, facts.notes);
  const troubles = facts.causes.flatMap((cause) =>
    cause.datasets.map((dataset) => troubleOf(cause, dataset, inWindow)),
  );
  const stillFailing = troubles.filter((trouble) => trouble.status === 'FAILED').sort(bySince);
  const missing = troubles.filter((trouble) => trouble.status === 'MISSING').sort(bySince);
  const newlyFailed = stillFailing.filter((trouble) => trouble.isNew);
  const recovered = recoveriesOf(facts);
  const overdue = overdueOf(facts);
  const snoozed = [...facts.snoozes].sort(byId);
  const atRisk = facts.upcoming.filter((deadline) => deadline.habits.atRisk);
  const outages = [...facts.outages].sort(
    (a, b) => a.lostAt.localeCompare(b.lostAt) || a.sourceId.localeCompare(b.sourceId),
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
      overdue: overdue.datasets.length,
      snoozed: snoozed.length,
      atRisk: atRisk.length,
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

/** What the store holds for the window: causes, timeline, snoozes, outages (call when the store is idle). */
export function readStoredFacts(
  store: Store,
  orgId: string,
  since: number,
  now: number,
): Pick<HandoffFacts, 'orgName' | 'causes' | 'statusAtStart' | 'entries' | 'notes' | 'snoozes' | 'outages'> {
  const window = readHandoffWindow(store, orgId, since, now);
  return {
    orgName: getOrg(store, orgId)?.name ?? orgId,
    causes: listCauses(store, orgId),
    ...window,
    snoozes: listSnoozes(store, orgId, new Date(now)),
  };
}
