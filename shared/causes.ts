/**
 * Causes and incidents (docs/decisions.md "Incidents"). A troubled dataset's failure has a cause key:
 *
 * - `ingest:E_AUTH_FAILED`: FAILED at Ingest with that shortCode (`ingest:` when the task gave none);
 * - `missing:<supplierId>`: MISSING datasets of that supplier (`missing:` when the supplier is unknown);
 * - `unknown`: FAILED datasets whose failure reason is not known yet (their tasks are not stored).
 *
 * Failures of one cause key close in time form an incident, with a stable id (`inc-…`) that the window's
 * URL, the CLI's `ack --cause` and the local API all use.
 */
import { MAX_ACK_NAME_LENGTH, MAX_NOTE_LENGTH } from './ackLimits';
import { CONTROL, codePoint } from './controlCharacters';
import { inTimeRange } from './timeRange';
import type { TasksRecord } from './schemas';
import { STAGES, STAGE_LABELS, type Stage } from './status';

/** The first failed task of a delivery: what its failure is grouped by and announced with. */
export interface FailureCause {
  stage: Stage;
  shortCode: string | null;
  message: string | null;
  /**
   * When it failed: the task's end, else its stage's time (RFC 3339), else null. What a failure's time
   * is taken from first (docs/decisions.md "Failure time").
   */
  at: string | null;
}

/** A stage group's time: the normalize group's is a plain string, "" (or anything unreadable) when unknown. */
function stageTime(timestamp: string | null): string | null {
  if (timestamp === null || timestamp === '') return null;
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) || !inTimeRange(ms) ? null : new Date(ms).toISOString();
}

/** The first failed task, stage by stage in pipeline order (tasks in their stored order); null if none failed. */
export function firstFailure(tasks: TasksRecord): FailureCause | null {
  for (const stage of STAGES) {
    const group = tasks[stage];
    const task = group.tasks.find((candidate) => candidate.status === 'FAILED');
    if (task)
      return {
        stage,
        shortCode: task.shortCode,
        message: task.message,
        at: task.taskEndedAt ?? stageTime(group.timestamp),
      };
  }
  return null;
}

export const UNKNOWN_CAUSE_ID = 'unknown';
const MISSING_PREFIX = 'missing:';

export type CauseKind = 'failed' | 'missing' | 'unknown';

export function failedCauseId(stage: Stage, shortCode: string | null): string {
  return `${stage}:${shortCode ?? ''}`;
}

export function missingCauseId(supplierId: string | null): string {
  return `${MISSING_PREFIX}${supplierId ?? ''}`;
}

/** Longest cause id accepted anywhere (a shortCode is a short code; this bounds hostile input). */
export const MAX_CAUSE_ID_LENGTH = 300;

export type ParsedCause =
  | { kind: 'failed'; stage: Stage; shortCode: string | null }
  | { kind: 'missing'; supplierId: string | null }
  | { kind: 'unknown' };

/**
 * Reads a cause id (`STAGE:SHORTCODE`, `missing:SUPPLIER`, `unknown`); the stage's case does not matter.
 * Throws an Error whose message says what is allowed.
 */
export function parseCauseId(text: string): ParsedCause {
  if (text.length === 0 || text.length > MAX_CAUSE_ID_LENGTH)
    throw new Error(`a cause must be 1 to ${MAX_CAUSE_ID_LENGTH} characters`);
  if (text.toLowerCase() === UNKNOWN_CAUSE_ID) return { kind: 'unknown' };
  const colon = text.indexOf(':');
  if (colon === -1)
    throw new Error(
      `cause '${text}' is not STAGE:SHORTCODE (stages: ${STAGES.join(', ')}), missing:SUPPLIER or unknown`,
    );
  const head = text.slice(0, colon).toLowerCase();
  const rest = text.slice(colon + 1);
  if (`${head}:` === MISSING_PREFIX) return { kind: 'missing', supplierId: rest === '' ? null : rest };
  if (!(STAGES as readonly string[]).includes(head))
    throw new Error(
      `cause '${text}': unknown stage '${text.slice(0, colon)}' (allowed: ${STAGES.join(', ')}, missing)`,
    );
  return { kind: 'failed', stage: head as Stage, shortCode: rest === '' ? null : rest };
}

/** The id in its canonical spelling. */
export function causeIdOf(cause: ParsedCause): string {
  if (cause.kind === 'unknown') return UNKNOWN_CAUSE_ID;
  if (cause.kind === 'missing') return missingCauseId(cause.supplierId);
  return failedCauseId(cause.stage, cause.shortCode);
}

/** "Ingest failed: E_AUTH_FAILED", "MISSING from Bluefin Exchange Feeds", "Failed, cause not known yet". */
export function causeTitle(cause: ParsedCause, supplierName: string | null = null): string {
  if (cause.kind === 'unknown') return 'Failed, cause not known yet';
  if (cause.kind === 'missing')
    return `MISSING from ${supplierName ?? cause.supplierId ?? 'an unknown supplier'}`;
  return `${STAGE_LABELS[cause.stage]} failed: ${cause.shortCode ?? 'no code'}`;
}

/** An acknowledgement as every door shows it. */
export interface AcknowledgementView {
  orgId: string;
  datasetId: string;
  /** The failed (or missing) delivery it is about: another delivery is a new problem. */
  deliveryId: string;
  /** The dataset's status when acknowledged (FAILED or MISSING). */
  status: string;
  /** The incident it was acknowledged with (`ack --cause`; a cause key before incidents), or null for one failure. */
  causeId: string | null;
  note: string | null;
  by: string;
  at: string;
  /** When it ended by itself (the dataset recovered or failed again), and why; null while it holds. */
  endedAt: string | null;
  endReason: string | null;
}

export { MAX_ACK_NAME_LENGTH, MAX_NOTE_LENGTH } from './ackLimits';

/** Control characters but tab and line feed, which a note of several lines holds. */
const CONTROL_IN_NOTE = /[^\P{Cc}\t\n]/u;

/**
 * Why a name of who acknowledges cannot be kept, or null when it can: 1 to MAX_ACK_NAME_LENGTH characters,
 * trimmed, no control characters. Every door that acknowledges (window, CLI, control channel) checks the
 * name it trims with this, and an import the name it reads (docs/decisions.md "Snapshots"): a file holds
 * exactly what the app can make. The phrase follows "the name".
 */
export function ackNameProblem(name: string): string | null {
  if (name === '' || name.length > MAX_ACK_NAME_LENGTH)
    return `must be 1 to ${MAX_ACK_NAME_LENGTH} characters`;
  if (name !== name.trim()) return 'has spaces at its start or end (names are kept trimmed)';
  const control = CONTROL.exec(name);
  if (control !== null) return `has a control character (${codePoint(control[0])}); a name is plain text`;
  return null;
}

/**
 * Why an acknowledgement's note cannot be kept, or null when it can: at most MAX_NOTE_LENGTH characters,
 * trimmed, line breaks and tabs but no other control characters. As ackNameProblem, for every door and
 * for import. The phrase follows "note".
 */
export function noteProblem(note: string): string | null {
  if (note.length > MAX_NOTE_LENGTH)
    return `is ${note.length} characters; at most ${MAX_NOTE_LENGTH} are kept`;
  if (note !== note.trim()) return 'has spaces or line breaks at its start or end (notes are kept trimmed)';
  const control = CONTROL_IN_NOTE.exec(note);
  if (control !== null)
    return `has a control character (${codePoint(control[0])}); a note holds text, line breaks and tabs`;
  return null;
}

/** One failure of an incident: a dataset and its failed (or missing) delivery. */
export interface CauseDataset {
  datasetId: string;
  datasetName: string | null;
  dataProductName: string | null;
  supplierId: string | null;
  supplierName: string | null;
  status: string;
  /** The failed (or missing) delivery. */
  deliveryId: string | null;
  /**
   * When it failed (docs/decisions.md "Failure time"): the first failed task's end, else its stage's
   * time, else the delivery's own time; the deadline when MISSING; never after the mirror learned of it.
   */
  since: string;
  message: string | null;
  acknowledgement: AcknowledgementView | null;
}

/**
 * An incident (docs/decisions.md "Incidents"): the failures of one cause whose failure times lie within
 * the gap of each other — one thing going wrong at one time, across suppliers.
 */
export interface Incident {
  /** Stable: it never changes as failures join (`inc-` and ten hex digits). */
  incidentId: string;
  /** The cause key its failures share (`ingest:E_AUTH_FAILED`, `missing:SUPPLIER`, `unknown`). */
  causeId: string;
  kind: CauseKind;
  title: string;
  stage: Stage | null;
  shortCode: string | null;
  /** Its datasets troubled now (the `datasets`). */
  count: number;
  /** Of those, the ones no acknowledgement holds for. */
  unacknowledged: number;
  /** Its failures that are over (their datasets recovered or failed again otherwise). */
  recovered: number;
  /** The suppliers of all its failures, most failures first. */
  suppliers: { id: string | null; name: string | null; count: number }[];
  /** Its earliest and latest failure time. */
  firstFailureAt: string;
  lastFailureAt: string;
  /** When none of its datasets was troubled any more; null while live. */
  endedAt: string | null;
  /** Its most recent failure troubled now, with its message. */
  representative: {
    datasetId: string;
    datasetName: string | null;
    deliveryId: string | null;
    message: string | null;
  } | null;
  /** Its failures troubled now: unacknowledged first, then by name. */
  datasets: CauseDataset[];
}

/** Who owns a failure, as the tray and Triage say it: "Alice is on it: vendor ticket 4711". */
export function onItLine(by: string, note: string | null, noteLength = Infinity): string {
  if (note === null || note === '') return `${by} is on it`;
  const oneLine = note.replace(/\s+/g, ' ').trim();
  const shown = oneLine.length > noteLength ? `${oneLine.slice(0, noteLength - 1)}…` : oneLine;
  return `${by} is on it: ${shown}`;
}
