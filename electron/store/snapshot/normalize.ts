/**
 * Turns records from outside (an import file, a remote page) into the stored shape: every field present,
 * unknown strings null, datetimes RFC 3339 UTC with milliseconds (docs/api.md#records-and-values).
 * Strict mode (import) stops at the first problem with its JSON path; lenient mode (sync) turns a bad
 * value into null and counts it.
 */
import {
  type DatasetRecord,
  type DeadlineConfig,
  type DeliveryEvent,
  type RunDetail,
  type Task,
  type TasksRecord,
  DEADLINE_CONFIG_FIELDS,
} from '../../../shared/schemas';
import { STAGES } from '../../../shared/status';
import { normalizeDateTime } from './dateTime';
import { scheduleProblem, timeZoneProblem } from './importRules';
import {
  type NormalizeContext,
  array,
  dateTime,
  describe,
  fields,
  isObject,
  knownKeys,
  object,
  problem,
  status,
  str,
  tooLong,
} from './recordFields';

export { RecordProblem, type NormalizeContext, lenientContext, strictContext } from './recordFields';

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

const CONFIG_KEYS = fields(DEADLINE_CONFIG_FIELDS);

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
  for (let i = 0; i < DEADLINE_CONFIG_FIELDS.length; i++) {
    if (value[DEADLINE_CONFIG_FIELDS[i]!] !== last.values[i]) return null;
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
      ? {
          ctx,
          values: DEADLINE_CONFIG_FIELDS.map((field) => value[field]),
          fields: Object.keys(value).length,
          config,
        }
      : null;
  return config;
}

function normalizeNewConfig(ctx: NormalizeContext, value: unknown, path: string): DeadlineConfig {
  const input = object(ctx, value, path) ?? {};
  knownKeys(ctx, input, CONFIG_KEYS, path);
  const config = {} as DeadlineConfig;
  for (const field of DEADLINE_CONFIG_FIELDS) config[field] = str(ctx, input, field, path) ?? '';
  const key = DEADLINE_CONFIG_FIELDS.map((field) => config[field]).join('\u0000');
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
