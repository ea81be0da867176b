/**
 * The local knowledge in a snapshot (docs/architecture.md#snapshots: "covered by export/import"): each dataset's
 * timeline, the org's acknowledgements (open and ended), its sync outages and its incidents. Checked as
 * strictly as the records (unknown fields, kinds and statuses, times that are not RFC 3339, over-long
 * text, names and notes the app could not have stored), each problem named by its JSON path; written
 * beside the datasets in the import's transaction (knowledgeWriter.ts). The format is docs/decisions.md "Snapshots: the
 * local knowledge".
 */
import {
  type AcknowledgementView,
  type ParsedCause,
  MAX_ACK_NAME_LENGTH,
  MAX_CAUSE_ID_LENGTH,
  MAX_NOTE_LENGTH,
  ackNameProblem,
  causeIdOf,
  noteProblem,
  parseCauseId,
} from '../../../shared/causes';
import { TIMELINE_KINDS, type TimelineEntry, type TimelineKind } from '../../../shared/timeline';
import { INCIDENT_ID } from '../schema/incidents';
import { MAX_ID_LENGTH, MAX_NAME_LENGTH, shortQuote } from './importRules';
import { Fields } from './knowledgeFields';
import { RecordProblem, describe } from './recordFields';

/** An acknowledgement as a snapshot holds it: the org is the one imported into. */
export type SnapshotAcknowledgement = Omit<AcknowledgementView, 'orgId'>;

/** A source's lost contact, as a snapshot holds it. */
export interface SnapshotSyncOutage {
  sourceId: string;
  sourceName: string;
  lastSuccessAt: string | null;
  lostAt: string;
  regainedAt: string | null;
}

/** One failure an incident holds, as a snapshot holds it (its cause is its incident's). */
export interface SnapshotIncidentFailure {
  datasetId: string;
  /** '' when the remote named no delivery (as the store keeps it). */
  deliveryId: string;
  status: 'FAILED' | 'MISSING';
  failureAt: string;
  learnedAt: string;
  endedAt: string | null;
}

/** An incident (docs/decisions.md "Incidents") with its failures, live and over. */
export interface SnapshotIncident {
  incidentId: string;
  causeId: string;
  title: string;
  firstFailureAt: string;
  lastFailureAt: string;
  openedAt: string;
  endedAt: string | null;
  failures: SnapshotIncidentFailure[];
}

/** The fields of each record, in the order export writes them and messages list them. */
export const TIMELINE_ENTRY_FIELDS = ['at', 'kind', 'from', 'to', 'deliveryId', 'text', 'by'] as const;
export const ACKNOWLEDGEMENT_FIELDS = [
  'datasetId',
  'deliveryId',
  'status',
  'causeId',
  'note',
  'by',
  'at',
  'endedAt',
  'endReason',
] as const;
export const SYNC_OUTAGE_FIELDS = [
  'sourceId',
  'sourceName',
  'lastSuccessAt',
  'lostAt',
  'regainedAt',
] as const;

export const INCIDENT_FIELDS = [
  'incidentId',
  'causeId',
  'title',
  'firstFailureAt',
  'lastFailureAt',
  'openedAt',
  'endedAt',
  'failures',
] as const;
export const INCIDENT_FAILURE_FIELDS = [
  'datasetId',
  'deliveryId',
  'status',
  'failureAt',
  'learnedAt',
  'endedAt',
] as const;

const KINDS: ReadonlySet<string> = new Set(TIMELINE_KINDS);
/** The entries the app writes with an acknowledgement's delivery (store/tables/acknowledgements.ts). */
const ACKNOWLEDGEMENT_KINDS: ReadonlySet<string> = new Set([
  'acknowledged',
  'unacknowledged',
  'acknowledgement-ended',
]);

/** One dataset's timeline as the file gives it (`$.timeline["<datasetId>"]`): entries, any order. */
export function normalizeTimeline(value: unknown, path: string): TimelineEntry[] {
  if (!Array.isArray(value))
    throw new RecordProblem(path, `expected an array of timeline entries, got ${describe(value)}`);
  return value.map((item, i): TimelineEntry => {
    const fields = new Fields(item, `${path}[${i}]`, TIMELINE_ENTRY_FIELDS, 'a timeline entry');
    const at = fields.requiredTime('at');
    const kind = fields.required('kind', MAX_ID_LENGTH);
    if (!KINDS.has(kind))
      throw new RecordProblem(
        fields.at('kind'),
        `${shortQuote(kind)} is not a timeline kind (allowed: ${TIMELINE_KINDS.join(', ')})`,
      );
    // A lost contact is the org's (sync_outages), shown on every dataset's timeline: export never writes
    // one into a dataset's timeline, and one stored there would show twice.
    if (kind === 'outage')
      throw new RecordProblem(
        fields.at('kind'),
        "an outage is the org's, not a dataset's: give it in $.syncOutages (every dataset's timeline shows the org's outages)",
      );
    const text = fields.text('text', MAX_NOTE_LENGTH);
    const deliveryId = fields.text('deliveryId', MAX_ID_LENGTH);
    if (deliveryId === null && ACKNOWLEDGEMENT_KINDS.has(kind))
      throw new RecordProblem(
        fields.at('deliveryId'),
        `missing; an '${kind}' entry names the delivery acknowledged`,
      );
    return {
      at,
      kind: kind as TimelineKind,
      from: fields.status('from'),
      to: fields.status('to'),
      deliveryId,
      // An acknowledgement's entry holds its note; the other texts are made of the remote's names and ids.
      text: kind === 'acknowledged' ? fields.madeByApp('text', text, noteProblem, 'the note') : text,
      by: fields.madeByApp('by', fields.text('by', MAX_ACK_NAME_LENGTH), ackNameProblem, 'the name'),
    };
  });
}

export function normalizeAcknowledgement(value: unknown, path: string): SnapshotAcknowledgement {
  const fields = new Fields(value, path, ACKNOWLEDGEMENT_FIELDS, 'an acknowledgement');
  const datasetId = fields.required('datasetId', MAX_ID_LENGTH);
  const deliveryId = fields.required('deliveryId', MAX_ID_LENGTH);
  const status = fields.status('status');
  if (status === null || status === '')
    throw new RecordProblem(fields.at('status'), 'missing; the status acknowledged (FAILED or MISSING)');
  let causeId = fields.text('causeId', MAX_CAUSE_ID_LENGTH);
  // An incident's id (`ack --cause inc-…`), or a cause key (acknowledgements made before incidents).
  if (causeId !== null && !INCIDENT_ID.test(causeId)) {
    try {
      causeId = causeIdOf(parseCauseId(causeId));
    } catch (error) {
      throw new RecordProblem(fields.at('causeId'), (error as Error).message);
    }
  }
  const note = fields.madeByApp('note', fields.text('note', MAX_NOTE_LENGTH, true), noteProblem, 'the note');
  const by = fields.madeByApp('by', fields.required('by', MAX_ACK_NAME_LENGTH), ackNameProblem, 'the name');
  const at = fields.requiredTime('at');
  const endedAt = fields.time('endedAt');
  fields.notBefore(endedAt, 'endedAt', at, 'at');
  const endReason = fields.text('endReason', MAX_NOTE_LENGTH, true);
  if (endReason !== null && endedAt === null)
    throw new RecordProblem(
      fields.at('endReason'),
      'given without endedAt (only an ended acknowledgement has one)',
    );
  return { datasetId, deliveryId, status, causeId, note, by, at, endedAt, endReason };
}

export function normalizeSyncOutage(value: unknown, path: string): SnapshotSyncOutage {
  const fields = new Fields(value, path, SYNC_OUTAGE_FIELDS, 'a sync outage');
  const sourceId = fields.required('sourceId', MAX_ID_LENGTH);
  const sourceName = fields.required('sourceName', MAX_NAME_LENGTH);
  const lastSuccessAt = fields.time('lastSuccessAt');
  const lostAt = fields.requiredTime('lostAt');
  const regainedAt = fields.time('regainedAt');
  fields.notBefore(lostAt, 'lostAt', lastSuccessAt, 'lastSuccessAt');
  fields.notBefore(regainedAt, 'regainedAt', lostAt, 'lostAt');
  return { sourceId, sourceName, lastSuccessAt, lostAt, regainedAt };
}

/**
 * An incident as the store keeps it (store/schema/incidents.ts): its id as incidentIdOf spells it, a cause key
 * (canonical, as acknowledgements' are), each failure's status of its cause's kind, a failure never
 * after the mirror learned of it, and ended exactly when none of its failures is live.
 */
export function normalizeIncident(value: unknown, path: string): SnapshotIncident {
  const fields = new Fields(value, path, INCIDENT_FIELDS, 'an incident');
  const incidentId = fields.required('incidentId', MAX_ID_LENGTH);
  if (!INCIDENT_ID.test(incidentId))
    throw new RecordProblem(
      fields.at('incidentId'),
      `${shortQuote(incidentId)} is not an incident id ('inc-' and 10 lower-case hex digits, maybe '-N')`,
    );
  const given = fields.required('causeId', MAX_CAUSE_ID_LENGTH);
  let cause: ParsedCause;
  try {
    cause = parseCauseId(given);
  } catch (error) {
    throw new RecordProblem(fields.at('causeId'), (error as Error).message);
  }
  const causeId = causeIdOf(cause);
  // Made of the remote's names and ids (a supplier's name): only its length is checked.
  const title = fields.required('title', MAX_NOTE_LENGTH);
  const firstFailureAt = fields.requiredTime('firstFailureAt');
  const lastFailureAt = fields.requiredTime('lastFailureAt');
  fields.notBefore(lastFailureAt, 'lastFailureAt', firstFailureAt, 'firstFailureAt');
  const openedAt = fields.requiredTime('openedAt');
  const endedAt = fields.time('endedAt');
  const list = fields.array('failures', 'failures');
  if (list.length === 0)
    throw new RecordProblem(fields.at('failures'), 'empty; an incident holds at least one failure');
  const failures = list.map((item, i) =>
    normalizeIncidentFailure(item, `${fields.at('failures')}[${i}]`, cause, causeId),
  );
  const live = failures.findIndex((failure) => failure.endedAt === null);
  if (endedAt !== null && live >= 0)
    throw new RecordProblem(
      fields.at('endedAt'),
      `given, but its failure at ${fields.at('failures')}[${live}] is live (endedAt null): an incident ends when none of its failures is`,
    );
  if (endedAt === null && live < 0)
    throw new RecordProblem(
      fields.at('endedAt'),
      'null, but every one of its failures has ended: an incident ends when none of its failures is live',
    );
  return { incidentId, causeId, title, firstFailureAt, lastFailureAt, openedAt, endedAt, failures };
}

function normalizeIncidentFailure(
  value: unknown,
  path: string,
  cause: ParsedCause,
  causeId: string,
): SnapshotIncidentFailure {
  const fields = new Fields(value, path, INCIDENT_FAILURE_FIELDS, 'a failure');
  const datasetId = fields.required('datasetId', MAX_ID_LENGTH);
  const deliveryId = fields.text('deliveryId', MAX_ID_LENGTH);
  if (deliveryId === null)
    throw new RecordProblem(
      fields.at('deliveryId'),
      "missing; the failed or missing delivery's id ('' when the remote named none)",
    );
  const status = fields.text('status', MAX_ID_LENGTH);
  if (status !== 'FAILED' && status !== 'MISSING')
    throw new RecordProblem(
      fields.at('status'),
      status === null
        ? 'missing; FAILED or MISSING'
        : `${shortQuote(status)} is not a failure's status (FAILED or MISSING)`,
    );
  // A MISSING failure's cause is its supplier's; a FAILED one's a stage's, or unknown.
  if ((status === 'MISSING') !== (cause.kind === 'missing'))
    throw new RecordProblem(
      fields.at('status'),
      `a ${status} failure in an incident of cause ${shortQuote(causeId)} (MISSING failures are of missing:SUPPLIER causes, FAILED ones of STAGE:SHORTCODE or unknown)`,
    );
  const failureAt = fields.requiredTime('failureAt');
  const learnedAt = fields.requiredTime('learnedAt');
  // Never after the mirror learned of it (docs/decisions.md "Failure time").
  if (Date.parse(failureAt) > Date.parse(learnedAt))
    throw new RecordProblem(
      fields.at('failureAt'),
      `${failureAt} is after learnedAt (${learnedAt}): a failure is never later than when the mirror learned of it`,
    );
  const endedAt = fields.time('endedAt');
  return { datasetId, deliveryId, status, failureAt, learnedAt, endedAt };
}
