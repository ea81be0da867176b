/**
 * Turns records from outside (an import file, a remote page) into the stored shape: every field present,
 * unknown strings null, datetimes RFC 3339 UTC with milliseconds (docs/api.md#records-and-values).
 * Strict mode (import) stops at the first problem with its JSON path; lenient mode (sync) turns a bad
 * value into null and counts it.
 */
import { EARLIEST_TIME, LATEST_TIME, inTimeRange } from '../../shared/timeRange';
import type {
  DatasetRecord,
  DeadlineConfig,
  DeliveryEvent,
  RunDetail,
  Task,
  TasksRecord,
} from '../../shared/schemas';
import { STAGES } from '../../shared/status';
import {
  MAX_ID_LENGTH,
  jsonKey,
  maxLength,
  scheduleProblem,
  shortQuote,
  statusProblem,
  timeZoneProblem,
} from './importRules';

export class RecordProblem extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'RecordProblem';
  }
}

export interface NormalizeContext {
  strict: boolean;
  /** Problems turned into nulls (lenient mode only). */
  problems: RecordProblem[];
}

export function strictContext(): NormalizeContext {
  return { strict: true, problems: [] };
}

export function lenientContext(): NormalizeContext {
  return { strict: false, problems: [] };
}

function problem(ctx: NormalizeContext, path: string, message: string): null {
  const found = new RecordProblem(path, message);
  if (ctx.strict) throw found;
  ctx.problems.push(found);
  return null;
}

const ZONE = /(Z|[+-]\d{2}(:?\d{2})?)$/i;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i;

const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** RFC 3339 / ISO 8601 with any offset (none means UTC) → `2026-11-21T04:41:00.000Z`; null if unparseable. */
export function normalizeDateTime(text: string): string | null {
  // Fast path: a remote that already sends the canonical form (a sync or an import reads hundreds of
  // thousands): its fields checked in place, nothing allocated. Four digits of year and Z: always in range.
  if (CANONICAL.test(text) && canonicalInRange(text)) return text;
  const ms = instantOf(text);
  // Years 0000–9999 in UTC only: `toISOString` writes others as `+010000-…` or `-000001-…`, which are
  // not RFC 3339, and an export holding one would not import again (docs/decisions.md "Import").
  return ms === null || !inTimeRange(ms) ? null : new Date(ms).toISOString();
}

/** The instant a non-canonical time names (perhaps outside the stored range), or null if it names none. */
function instantOf(text: string): number | null {
  const trimmed = text.trim();
  if (!ISO_DATE_TIME.test(trimmed)) return null;
  const hasTime = trimmed.length > 10;
  const withT = trimmed.replace(' ', 'T');
  const zoned = !hasTime ? `${withT}T00:00:00Z` : ZONE.test(withT) ? withT : `${withT}Z`;
  const ms = Date.parse(zoned);
  return Number.isFinite(ms) && fieldsInRange(trimmed) ? ms : null;
}

/** Why normalizeDateTime refused `text` (it returned null), as a message naming what is allowed. */
export function dateTimeRefusal(text: string): string {
  const ms = instantOf(text);
  if (ms === null) return `${shortQuote(text)} is not an RFC 3339 datetime`;
  return `${shortQuote(text)} is ${new Date(ms).toISOString()} in UTC: times must lie between ${EARLIEST_TIME} and ${LATEST_TIME}`;
}

/** The number written by the digits of `text` from `start` to `end` (the caller knows they are digits). */
function digits(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) value = value * 10 + text.charCodeAt(i) - 48;
  return value;
}

/** Days in a month of the proleptic Gregorian calendar (year 0 is a leap year, as in ISO 8601). */
function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** A canonical `YYYY-MM-DDTHH:MM:SS.mmmZ` whose fields are a real date and time (as toISOString would write). */
function canonicalInRange(text: string): boolean {
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  if (month < 1 || month > 12 || day < 1) return false;
  return (
    day <= daysInMonth(digits(text, 0, 4), month) &&
    digits(text, 11, 13) <= 23 &&
    digits(text, 14, 16) <= 59 &&
    digits(text, 17, 19) <= 59
  );
}

/**
 * Date.parse rolls 2026-02-30 over to March: check the calendar and clock fields themselves (those of
 * `text` as written, before its offset applies). `text` matched ISO_DATE_TIME: the fields are digits at
 * fixed places, seconds only when a colon follows the minutes (`04:41Z`, `04:41+01:00` have none).
 */
function fieldsInRange(text: string): boolean {
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(digits(text, 0, 4), month)) return false;
  if (text.length <= 10) return true;
  const second = text.charAt(16) === ':' ? digits(text, 17, 19) : 0;
  return digits(text, 11, 13) <= 23 && digits(text, 14, 16) <= 59 && second <= 59;
}

/** The fields an object of the format may have, in the order messages list them. */
interface Fields {
  list: readonly string[];
  set: ReadonlySet<string>;
}
const fields = (list: readonly string[]): Fields => ({ list, set: new Set(list) });

/** Strict mode only: a field the format does not have is most likely a typo of one it has. */
function knownKeys(
  ctx: NormalizeContext,
  input: Record<string, unknown>,
  allowed: Fields,
  path: string,
): void {
  if (!ctx.strict) return;
  for (const key of Object.keys(input)) {
    if (allowed.set.has(key)) continue;
    problem(
      ctx,
      jsonPath(path, key),
      `unknown field ${shortQuote(key)} (allowed: ${allowed.list.join(', ')})`,
    );
  }
}

/** `path.key`, or `path["key"]` (cut short) when the key is not a plain name. */
export function jsonPath(path: string, key: string): string {
  if (/^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/.test(key)) return `${path}.${key}`;
  return `${path}[${jsonKey(key)}]`;
}

/** Strict mode only: a value over its field's length limit (importRules.ts). */
function tooLong(ctx: NormalizeContext, value: string, key: string, path: string): boolean {
  // Every limit is at least MAX_ID_LENGTH: most values are shorter, and need no look-up.
  if (!ctx.strict || value.length <= MAX_ID_LENGTH) return false;
  const max = maxLength(key);
  if (value.length <= max) return false;
  problem(ctx, `${path}.${key}`, `${value.length} characters, over the limit of ${max} for ${key}`);
  return true;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(
  ctx: NormalizeContext,
  input: Record<string, unknown>,
  key: string,
  path: string,
): string | null {
  const value = input[key];
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return tooLong(ctx, value, key, path) ? null : value;
  // A remote's number where a string belongs is kept as text; a file to import must say what it means.
  if (!ctx.strict && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
  return problem(ctx, `${path}.${key}`, `expected a string, got ${describe(value)}`);
}

function dateTime(
  ctx: NormalizeContext,
  input: Record<string, unknown>,
  key: string,
  path: string,
): string | null {
  const value = input[key];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string')
    return problem(ctx, `${path}.${key}`, `expected a datetime string, got ${describe(value)}`);
  if (tooLong(ctx, value, key, path)) return null;
  return normalizeDateTime(value) ?? problem(ctx, `${path}.${key}`, dateTimeRefusal(value));
}

/** A status: any word in strict mode (stored as given, as a sync does; importRules.ts), any string else. */
function status(
  ctx: NormalizeContext,
  input: Record<string, unknown>,
  key: string,
  path: string,
): string | null {
  const value = str(ctx, input, key, path);
  if (value === null || !ctx.strict) return value;
  const found = statusProblem(value);
  return found === null ? value : problem(ctx, `${path}.${key}`, found);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

function object(ctx: NormalizeContext, value: unknown, path: string): Record<string, unknown> | null {
  if (value === undefined || value === null) return {};
  if (isObject(value)) return value;
  return problem(ctx, path, `expected an object, got ${describe(value)}`);
}

function array(ctx: NormalizeContext, value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  problem(ctx, path, `expected an array, got ${describe(value)}`);
  return [];
}

const EVENT_FIELDS = fields([
  'status',
  'deliveryDeadline',
  'deliveredAt',
  'processingDeadlineConfig',
  'deliveryId',
  'runDetails',
]);
const RECORD_FIELDS = fields([
  'legacyDatasetId',
  'datasetId',
  'datasetName',
  'cduId',
  'cduName',
  'dataProductId',
  'dataProductName',
  'ownerOrgId',
  'supplier',
  'currentProcessingDeadlineConfig',
  'deliveryId',
  'deliveryEventList',
  'latestDeliveryStatus',
  'latestDeliveryTimestamp',
  'nextExpectedDeliveryTimestamp',
]);
const TASK_FIELDS = fields([
  'taskId',
  'taskName',
  'deliveryId',
  'cduId',
  'datasetId',
  'frameId',
  'scheduledAt',
  'status',
  'reportedStatus',
  'taskStartedAt',
  'taskEndedAt',
  'shortCode',
  'codeDetails',
  'message',
  'details',
  'createdAt',
]);
const RUN_DETAIL_FIELDS = fields(['stage', 'runId', 'status', 'startedAt', 'endedAt']);
const SUPPLIER_FIELDS = fields(['id', 'name']);
const GROUP_FIELDS = fields(['status', 'timestamp', 'tasks']);
const STAGE_FIELDS = fields(STAGES);

const CONFIG_FIELDS = [
  'minute',
  'hour',
  'dayOfTheMonth',
  'month',
  'dayOfWeek',
  'year',
  'timezone',
  'cronExpression',
] as const;
const CONFIG_KEYS = fields(CONFIG_FIELDS);

/**
 * Configs repeat on every event of a dataset and across datasets: equal ones become one shared, frozen
 * object, so the store recognises them by identity instead of serializing each (a sync reads 300k).
 */
const sharedConfigs = new Map<string, DeadlineConfig>();
const MAX_SHARED_CONFIGS = 10_000;
/** Configs an import already checked (zone and schedule checks cost a croner parse and an Intl zone). */
const validConfigs = new Set<string>();

/**
 * The last config normalized, as given and as returned: consecutive events of a record mostly repeat
 * their dataset's config, and one with the very same values (and as many fields) is the same config.
 */
let lastConfig: { ctx: NormalizeContext; values: unknown[]; fields: number; config: DeadlineConfig } | null =
  null;

function sameAsLast(ctx: NormalizeContext, value: unknown): DeadlineConfig | null {
  const last = lastConfig;
  if (last === null || last.ctx !== ctx || !isObject(value)) return null;
  for (let i = 0; i < CONFIG_FIELDS.length; i++) {
    if (value[CONFIG_FIELDS[i]!] !== last.values[i]) return null;
  }
  // The same values and as many fields: no field the last one did not have.
  return Object.keys(value).length === last.fields ? last.config : null;
}

export function normalizeDeadlineConfig(ctx: NormalizeContext, value: unknown, path: string): DeadlineConfig {
  const same = sameAsLast(ctx, value);
  if (same !== null) return same;
  const problems = ctx.problems.length;
  const config = normalizeNewConfig(ctx, value, path);
  // Remembered only when it came through without problems (lenient mode would have to count them again).
  lastConfig =
    isObject(value) && ctx.problems.length === problems
      ? { ctx, values: CONFIG_FIELDS.map((field) => value[field]), fields: Object.keys(value).length, config }
      : null;
  return config;
}

function normalizeNewConfig(ctx: NormalizeContext, value: unknown, path: string): DeadlineConfig {
  const input = object(ctx, value, path) ?? {};
  knownKeys(ctx, input, CONFIG_KEYS, path);
  const config = {} as DeadlineConfig;
  for (const field of CONFIG_FIELDS) config[field] = str(ctx, input, field, path) ?? '';
  const key = CONFIG_FIELDS.map((field) => config[field]).join('\u0000');
  if (ctx.strict && !validConfigs.has(key)) {
    const zone = timeZoneProblem(config.timezone.trim());
    if (zone !== null) problem(ctx, `${path}.timezone`, zone);
    const schedule = scheduleProblem(config);
    if (schedule !== null) problem(ctx, `${path}.${schedule[0]}`, schedule[1]);
    if (validConfigs.size >= MAX_SHARED_CONFIGS) validConfigs.clear();
    validConfigs.add(key);
  }
  const shared = sharedConfigs.get(key);
  if (shared) return shared;
  if (sharedConfigs.size >= MAX_SHARED_CONFIGS) sharedConfigs.clear();
  sharedConfigs.set(key, Object.freeze(config));
  return config;
}

function normalizeRunDetail(ctx: NormalizeContext, value: unknown, path: string): RunDetail | null {
  if (!isObject(value)) return problem(ctx, path, `expected an object, got ${describe(value)}`);
  knownKeys(ctx, value, RUN_DETAIL_FIELDS, path);
  return {
    stage: str(ctx, value, 'stage', path) ?? '',
    runId: str(ctx, value, 'runId', path),
    status: status(ctx, value, 'status', path),
    startedAt: dateTime(ctx, value, 'startedAt', path),
    endedAt: dateTime(ctx, value, 'endedAt', path),
  };
}

export function normalizeEvent(ctx: NormalizeContext, value: unknown, path: string): DeliveryEvent | null {
  if (!isObject(value)) return problem(ctx, path, `expected a delivery event object, got ${describe(value)}`);
  knownKeys(ctx, value, EVENT_FIELDS, path);
  const event: DeliveryEvent = {
    status: status(ctx, value, 'status', path),
    deliveryDeadline: dateTime(ctx, value, 'deliveryDeadline', path),
    deliveredAt: dateTime(ctx, value, 'deliveredAt', path),
    processingDeadlineConfig: normalizeDeadlineConfig(
      ctx,
      value.processingDeadlineConfig,
      `${path}.processingDeadlineConfig`,
    ),
    deliveryId: str(ctx, value, 'deliveryId', path),
  };
  if (value.runDetails !== undefined && value.runDetails !== null) {
    event.runDetails = array(ctx, value.runDetails, `${path}.runDetails`)
      .map((detail, i) => normalizeRunDetail(ctx, detail, `${path}.runDetails[${i}]`))
      .filter((detail): detail is RunDetail => detail !== null);
  }
  return event;
}

/** null when the record cannot be kept at all (not an object, or no datasetId). */
export function normalizeDatasetRecord(
  ctx: NormalizeContext,
  value: unknown,
  path: string,
): DatasetRecord | null {
  if (!isObject(value)) return problem(ctx, path, `expected a dataset record object, got ${describe(value)}`);
  const datasetId = str(ctx, value, 'datasetId', path);
  if (datasetId === null || datasetId === '')
    return problem(ctx, `${path}.datasetId`, 'a dataset record needs a datasetId');
  knownKeys(ctx, value, RECORD_FIELDS, path);
  const supplier = object(ctx, value.supplier, `${path}.supplier`) ?? {};
  knownKeys(ctx, supplier, SUPPLIER_FIELDS, `${path}.supplier`);
  const events = array(ctx, value.deliveryEventList, `${path}.deliveryEventList`);
  return {
    legacyDatasetId: str(ctx, value, 'legacyDatasetId', path),
    datasetId,
    datasetName: str(ctx, value, 'datasetName', path),
    cduId: str(ctx, value, 'cduId', path),
    cduName: str(ctx, value, 'cduName', path),
    dataProductId: str(ctx, value, 'dataProductId', path),
    dataProductName: str(ctx, value, 'dataProductName', path),
    ownerOrgId: str(ctx, value, 'ownerOrgId', path),
    supplier: {
      id: str(ctx, supplier, 'id', `${path}.supplier`),
      name: str(ctx, supplier, 'name', `${path}.supplier`),
    },
    currentProcessingDeadlineConfig: normalizeDeadlineConfig(
      ctx,
      value.currentProcessingDeadlineConfig,
      `${path}.currentProcessingDeadlineConfig`,
    ),
    deliveryId: str(ctx, value, 'deliveryId', path),
    deliveryEventList: events
      .map((event, i) => normalizeEvent(ctx, event, `${path}.deliveryEventList[${i}]`))
      .filter((event): event is DeliveryEvent => event !== null),
    latestDeliveryStatus: status(ctx, value, 'latestDeliveryStatus', path),
    latestDeliveryTimestamp: dateTime(ctx, value, 'latestDeliveryTimestamp', path),
    nextExpectedDeliveryTimestamp: dateTime(ctx, value, 'nextExpectedDeliveryTimestamp', path),
  };
}

const DETAIL_FIELDS = [
  'deliveryId',
  'runId',
  'destinationId',
  'destinationName',
  'destinationType',
  'subscriberOrgId',
] as const;
const DETAIL_KEYS = fields(DETAIL_FIELDS);

function normalizeTask(ctx: NormalizeContext, value: unknown, path: string): Task | null {
  if (!isObject(value)) return problem(ctx, path, `expected a task object, got ${describe(value)}`);
  knownKeys(ctx, value, TASK_FIELDS, path);
  const detailsInput = object(ctx, value.details, `${path}.details`) ?? {};
  knownKeys(ctx, detailsInput, DETAIL_KEYS, `${path}.details`);
  const details: Task['details'] = { deliveryId: null };
  for (const field of DETAIL_FIELDS) {
    if (field === 'deliveryId' || detailsInput[field] !== undefined) {
      details[field] = str(ctx, detailsInput, field, `${path}.details`);
    }
  }
  return {
    taskId: str(ctx, value, 'taskId', path),
    taskName: str(ctx, value, 'taskName', path),
    deliveryId: str(ctx, value, 'deliveryId', path),
    cduId: str(ctx, value, 'cduId', path),
    datasetId: str(ctx, value, 'datasetId', path),
    frameId: str(ctx, value, 'frameId', path),
    scheduledAt: dateTime(ctx, value, 'scheduledAt', path),
    status: status(ctx, value, 'status', path),
    reportedStatus: status(ctx, value, 'reportedStatus', path),
    taskStartedAt: dateTime(ctx, value, 'taskStartedAt', path),
    taskEndedAt: dateTime(ctx, value, 'taskEndedAt', path),
    shortCode: str(ctx, value, 'shortCode', path),
    codeDetails: str(ctx, value, 'codeDetails', path),
    message: str(ctx, value, 'message', path),
    details,
    createdAt: dateTime(ctx, value, 'createdAt', path),
  };
}

export function normalizeTasksRecord(
  ctx: NormalizeContext,
  value: unknown,
  path: string,
): TasksRecord | null {
  if (!isObject(value)) return problem(ctx, path, `expected a tasks record object, got ${describe(value)}`);
  knownKeys(ctx, value, STAGE_FIELDS, path);
  const groups = {} as Record<(typeof STAGES)[number], unknown>;
  for (const stage of STAGES) {
    const groupPath = `${path}.${stage}`;
    const group = object(ctx, value[stage], groupPath) ?? {};
    knownKeys(ctx, group, GROUP_FIELDS, groupPath);
    const tasks = array(ctx, group.tasks, `${groupPath}.tasks`)
      .map((task, i) => normalizeTask(ctx, task, `${groupPath}.tasks[${i}]`))
      .filter((task): task is Task => task !== null);
    // The spec types the normalize group's timestamp as a plain string: keep it as text, "" when unknown.
    const timestamp =
      stage === 'normalize'
        ? typeof group.timestamp === 'string'
          ? (normalizeDateTime(group.timestamp) ?? group.timestamp)
          : ''
        : dateTime(ctx, group, 'timestamp', groupPath);
    if (typeof timestamp === 'string') tooLong(ctx, timestamp, 'timestamp', groupPath);
    groups[stage] = { status: status(ctx, group, 'status', groupPath), timestamp, tasks };
  }
  return groups as TasksRecord;
}
