/**
 * The local knowledge in a snapshot (docs/architecture.md#snapshots: "covered by export/import"): each dataset's
 * timeline, the org's acknowledgements (open and ended), its sync outages and its incidents. Checked as
 * strictly as the records (unknown fields, kinds and statuses, times that are not RFC 3339, over-long
 * text, names and notes the app could not have stored), each problem named by its JSON path; written
 * beside the datasets in the import's transaction. The format is docs/decisions.md "Snapshots: the
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
} from '../../shared/causes';
import { TIMELINE_KINDS, type TimelineEntry, type TimelineKind } from '../../shared/timeline';
import type { Store } from './database';
import { PROBLEM_DELIVERY } from './failedDelivery';
import { MAX_ID_LENGTH, MAX_NAME_LENGTH, shortQuote, statusProblem } from './importRules';
import { RecordProblem, dateTimeRefusal, jsonPath, normalizeDateTime } from './normalize';
import { AcknowledgementEntries, acknowledgementKey } from './snapshotAckEntries';
import { INCIDENT_ID } from './incidents';
import { addTimelineEntry } from './timeline';

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
/** The entries the app writes with an acknowledgement's delivery (store/acknowledgements.ts). */
const ACKNOWLEDGEMENT_KINDS: ReadonlySet<string> = new Set([
  'acknowledged',
  'unacknowledged',
  'acknowledgement-ended',
]);

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

/** Reads the fields of one object of the file, each problem thrown with its path. */
class Fields {
  private readonly input: Record<string, unknown>;

  constructor(
    value: unknown,
    private readonly path: string,
    allowed: readonly string[],
    what: string,
  ) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new RecordProblem(path, `expected ${what} (an object), got ${describe(value)}`);
    this.input = value as Record<string, unknown>;
    for (const key of Object.keys(this.input)) {
      if (!allowed.includes(key))
        throw new RecordProblem(
          jsonPath(path, key),
          `unknown field ${shortQuote(key)} (allowed: ${allowed.join(', ')})`,
        );
    }
  }

  at(key: string): string {
    return jsonPath(this.path, key);
  }

  /** A string of at most `max` characters, or null when absent, null (or, with `emptyIsNull`, ""). */
  text(key: string, max: number, emptyIsNull = false): string | null {
    const value = this.input[key];
    if (value === undefined || value === null || (emptyIsNull && value === '')) return null;
    if (typeof value !== 'string')
      throw new RecordProblem(this.at(key), `expected a string, got ${describe(value)}`);
    if (value.length > max)
      throw new RecordProblem(
        this.at(key),
        `${value.length} characters, over the limit of ${max} for ${key}`,
      );
    return value;
  }

  required(key: string, max: number): string {
    const value = this.text(key, max);
    if (value === null || value === '')
      throw new RecordProblem(this.at(key), `missing; a non-empty string of at most ${max} characters`);
    return value;
  }

  status(key: string): string | null {
    const value = this.text(key, MAX_ID_LENGTH);
    const problem = value === null ? null : statusProblem(value);
    if (problem !== null) throw new RecordProblem(this.at(key), problem);
    return value;
  }

  /** An RFC 3339 time, stored as `2026-11-21T04:41:00.000Z` (as every time of the store). */
  time(key: string): string | null {
    const value = this.text(key, MAX_ID_LENGTH, true);
    if (value === null) return null;
    const time = normalizeDateTime(value);
    if (time === null) throw new RecordProblem(this.at(key), dateTimeRefusal(value));
    return time;
  }

  requiredTime(key: string): string {
    const time = this.time(key);
    if (time === null) throw new RecordProblem(this.at(key), 'missing; an RFC 3339 datetime');
    return time;
  }

  /**
   * A value the app itself could have stored (`problem`: shared/causes.ts's ackNameProblem or
   * noteProblem, what every door that acknowledges checks), said of `subject` ("the name", "the note").
   */
  madeByApp<T extends string | null>(
    key: string,
    value: T,
    problem: (text: string) => string | null,
    subject: string,
  ): T {
    const found = value === null ? null : problem(value);
    if (found !== null) throw new RecordProblem(this.at(key), `${subject} ${found}`);
    return value;
  }

  /** An array (`what`: its elements, for messages). */
  array(key: string, what: string): unknown[] {
    const value = this.input[key];
    if (value === undefined || value === null)
      throw new RecordProblem(this.at(key), `missing; an array of ${what}`);
    if (!Array.isArray(value))
      throw new RecordProblem(this.at(key), `expected an array of ${what}, got ${describe(value)}`);
    return value;
  }

  /** `later` is null, or not before `earlier`. */
  notBefore(later: string | null, laterKey: string, earlier: string | null, earlierKey: string): void {
    if (later !== null && earlier !== null && Date.parse(later) < Date.parse(earlier))
      throw new RecordProblem(this.at(laterKey), `${later} is before ${earlierKey} (${earlier})`);
  }
}

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
 * An incident as the store keeps it (store/incidents.ts): its id as incidentIdOf spells it, a cause key
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

/** Where a delivery is first named among the file's datasets, as the import's checker knows it. */
export interface DeliveryOwner {
  /** The datasetId it belongs to, and the JSON path that says so. */
  datasetId: string;
  path: string;
}

/**
 * The checks across records (a dataset of the file, a delivery of that dataset), made once the
 * file's datasets are all read, and the writes. Inside the import's transaction; throws RecordProblem.
 */
export class KnowledgeWriter {
  /** Each acknowledgement written (acknowledgementKey) → its path. */
  private readonly acks = new Map<string, string>();
  /** The timelines' entries that need one of those. */
  private readonly ackEntries = new AcknowledgementEntries();
  /** Dataset → the path of its open acknowledgement. */
  private readonly open = new Map<string, string>();
  /** `[sourceId, lostAt]` of each sync outage written → its path. */
  private readonly outages = new Map<string, string>();
  /** Each incident written → its path; each failure (incidentFailureKey) → its path. */
  private readonly incidents = new Map<string, string>();
  private readonly incidentFailures = new Map<string, string>();
  /** The org's incidents were replaced by the file's (it gave `incidents`). */
  private incidentsReplaced = false;
  /** Datasets whose timeline the file gave, with its earliest entry's time: pruned to retention at the end. */
  readonly timelines = new Map<string, string>();
  counts = { timelineEntries: 0, acknowledgements: 0, syncOutages: 0, incidents: 0 };

  constructor(
    private readonly store: Store,
    private readonly orgId: string,
    /** The index of the file's dataset record of this id, if any. */
    private readonly datasetIndex: (datasetId: string) => number | undefined,
    private readonly deliveryOwner: (deliveryId: string) => DeliveryOwner | undefined,
  ) {}

  private inFile(datasetId: string, path: string, what: string): void {
    if (this.datasetIndex(datasetId) === undefined)
      throw new RecordProblem(
        path,
        `${what} of dataset ${shortQuote(datasetId)}, which is not in the file's datasets (a snapshot holds the knowledge of its own datasets only)`,
      );
  }

  /** A delivery named is not another dataset's; with `required`, it is one the file gives this dataset. */
  private ownDelivery(datasetId: string, deliveryId: string | null, path: string, required = false): void {
    if (deliveryId === null) return;
    const owner = this.deliveryOwner(deliveryId);
    if (owner === undefined && required)
      throw new RecordProblem(
        path,
        `dataset ${shortQuote(datasetId)} has no delivery ${shortQuote(deliveryId)} in the file (an acknowledgement is of one of its dataset's deliveries: an event's deliveryId or the record's)`,
      );
    if (owner !== undefined && owner.datasetId !== datasetId)
      throw new RecordProblem(
        path,
        `delivery ${shortQuote(deliveryId)} belongs to dataset ${shortQuote(owner.datasetId)} (${owner.path}), not ${shortQuote(datasetId)}`,
      );
  }

  timeline(datasetId: string, entries: TimelineEntry[], path: string): void {
    this.inFile(datasetId, path, 'the timeline');
    entries.forEach((entry, i) => this.ownDelivery(datasetId, entry.deliveryId, `${path}[${i}].deliveryId`));
    this.ackEntries.add(
      datasetId,
      entries,
      path,
      (deliveryId) => this.deliveryOwner(deliveryId)?.datasetId === datasetId,
    );
    let earliest: string | null = null;
    for (const entry of entries) {
      addTimelineEntry(this.store, { orgId: this.orgId, datasetId, ...entry });
      // Canonical times (normalizeDateTime): as strings they sort as times.
      if (earliest === null || entry.at < earliest) earliest = entry.at;
    }
    if (earliest !== null) this.timelines.set(datasetId, earliest);
    this.counts.timelineEntries += entries.length;
  }

  acknowledgement(ack: SnapshotAcknowledgement, path: string): void {
    this.inFile(ack.datasetId, `${path}.datasetId`, 'an acknowledgement');
    // Ended ones too: export writes those of the deliveries it writes (query/exportSnapshot.ts).
    this.ownDelivery(ack.datasetId, ack.deliveryId, `${path}.deliveryId`, true);
    const key = acknowledgementKey(ack.datasetId, ack.deliveryId);
    const same = this.acks.get(key);
    if (same !== undefined)
      throw new RecordProblem(
        `${path}.deliveryId`,
        `delivery ${shortQuote(ack.deliveryId)} of dataset ${shortQuote(ack.datasetId)} is acknowledged also at ${same} (one acknowledgement per failure)`,
      );
    this.acks.set(key, path);
    if (ack.endedAt === null) this.holds(ack, path);
    this.store.run(
      `INSERT INTO acknowledgements (org_id, dataset_id, delivery_id, status, cause_id, note, by_name, at, ended_at, end_reason)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        this.orgId,
        ack.datasetId,
        ack.deliveryId,
        ack.status,
        ack.causeId,
        ack.note,
        ack.by,
        ack.at,
        ack.endedAt,
        ack.endReason,
      ],
    );
    this.counts.acknowledgements++;
  }

  /** The checks that need every record read: each acknowledgement's entry has its acknowledgement. */
  finish(): void {
    this.ackEntries.check(this.acks);
  }

  /** An open acknowledgement is of the dataset's failure now, as the file's record says (one per dataset). */
  private holds(ack: SnapshotAcknowledgement, path: string): void {
    const other = this.open.get(ack.datasetId);
    if (other !== undefined)
      throw new RecordProblem(
        `${path}.endedAt`,
        `dataset ${shortQuote(ack.datasetId)} has an open acknowledgement already at ${other} (at most one holds; the others have endedAt)`,
      );
    this.open.set(ack.datasetId, path);
    const now = this.store.get(
      `SELECT d.status, ${PROBLEM_DELIVERY} AS delivery FROM datasets d WHERE d.org_id = ? AND d.dataset_id = ?`,
      [this.orgId, ack.datasetId],
    );
    if (now !== undefined && now.status === ack.status && now.delivery === ack.deliveryId) return;
    const delivery = now?.delivery == null ? '' : ` with delivery ${shortQuote(String(now.delivery))}`;
    const status = now?.status == null ? 'has no status' : `is ${String(now.status)}${delivery}`;
    throw new RecordProblem(
      `${path}.endedAt`,
      `an open acknowledgement of ${ack.status} delivery ${shortQuote(ack.deliveryId)}, but the file's dataset ${shortQuote(ack.datasetId)} ${status} (give endedAt and endReason for one that ended)`,
    );
  }

  /**
   * The org's outage of the same source and start is replaced (an import again is the same import); the
   * file gives each once, as export writes them, so what it counts is what is stored.
   */
  syncOutage(outage: SnapshotSyncOutage, path: string): void {
    const key = JSON.stringify([outage.sourceId, outage.lostAt]);
    const same = this.outages.get(key);
    if (same !== undefined)
      throw new RecordProblem(
        `${path}.lostAt`,
        `source ${shortQuote(outage.sourceId)} lost contact at ${outage.lostAt} also at ${same} (one outage per source and start)`,
      );
    this.outages.set(key, path);
    this.store.run('DELETE FROM sync_outages WHERE org_id = ? AND source_id = ? AND lost_at = ?', [
      this.orgId,
      outage.sourceId,
      outage.lostAt,
    ]);
    this.store.run(
      // Imported: shown on the timelines, never taken for this mirror's own contact with a source.
      `INSERT INTO sync_outages (org_id, source_id, source_name, last_success_at, lost_at, regained_at, imported)
       VALUES (?, ?, ?, ?, ?, ?, 1)`,
      [
        this.orgId,
        outage.sourceId,
        outage.sourceName,
        outage.lastSuccessAt,
        outage.lostAt,
        outage.regainedAt,
      ],
    );
    this.counts.syncOutages++;
  }

  /**
   * The file gives `incidents` (maybe none): the org's incidents and their failures go, the file's
   * replace them (`incident`); the import's refreshIncidents then ends and groups from there. Once.
   */
  replaceIncidents(): void {
    if (this.incidentsReplaced) return;
    this.incidentsReplaced = true;
    this.store.run('DELETE FROM incident_failures WHERE org_id = ?', [this.orgId]);
    this.store.run('DELETE FROM incidents WHERE org_id = ?', [this.orgId]);
  }

  /**
   * An incident of the file, with its failures: each of a dataset the org has after the import (the
   * file's, or one it keeps), of a delivery that is not another dataset's of the file, and held by one
   * incident of the file only (a failure is the store's key).
   */
  incident(incident: SnapshotIncident, path: string): void {
    const same = this.incidents.get(incident.incidentId);
    if (same !== undefined)
      throw new RecordProblem(
        `${path}.incidentId`,
        `incident ${shortQuote(incident.incidentId)} is also at ${same} (one incident per id)`,
      );
    this.incidents.set(incident.incidentId, path);
    incident.failures.forEach((failure, i) => {
      const at = `${path}.failures[${i}]`;
      if (
        this.datasetIndex(failure.datasetId) === undefined &&
        this.store.value('SELECT 1 FROM datasets WHERE org_id = ? AND dataset_id = ?', [
          this.orgId,
          failure.datasetId,
        ]) === undefined
      )
        throw new RecordProblem(
          `${at}.datasetId`,
          `a failure of dataset ${shortQuote(failure.datasetId)}, which is neither in the file's datasets nor in org '${this.orgId}'`,
        );
      this.ownDelivery(failure.datasetId, failure.deliveryId || null, `${at}.deliveryId`);
      const key = JSON.stringify([failure.datasetId, failure.deliveryId, failure.status]);
      const other = this.incidentFailures.get(key);
      if (other !== undefined)
        throw new RecordProblem(
          at,
          `the ${failure.status} failure of dataset ${shortQuote(failure.datasetId)}, delivery ${shortQuote(failure.deliveryId)} is also at ${other} (a failure belongs to one incident)`,
        );
      this.incidentFailures.set(key, at);
    });
    this.replaceIncidents();
    this.store.run(
      `INSERT INTO incidents (org_id, incident_id, cause_id, title, first_failure_at, last_failure_at, opened_at, ended_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        this.orgId,
        incident.incidentId,
        incident.causeId,
        incident.title,
        incident.firstFailureAt,
        incident.lastFailureAt,
        incident.openedAt,
        incident.endedAt,
      ],
    );
    for (const failure of incident.failures)
      this.store.run(
        `INSERT INTO incident_failures (org_id, dataset_id, delivery_id, status, incident_id, cause_id, failure_at,
           learned_at, ended_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          this.orgId,
          failure.datasetId,
          failure.deliveryId,
          failure.status,
          incident.incidentId,
          incident.causeId,
          failure.failureAt,
          failure.learnedAt,
          failure.endedAt,
        ],
      );
    this.counts.incidents++;
  }
}
