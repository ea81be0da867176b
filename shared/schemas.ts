/**
 * The v2 records as TypeBox schemas: one source for request validation, TypeScript types, the
 * OpenAPI document and the import checks (docs/api.md#records-and-values).
 */
import Type, { type Static } from 'typebox';

const NullableString = Type.Union([Type.String(), Type.Null()]);
/** RFC 3339 UTC with milliseconds, or null when unknown. */
const NullableDateTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const DeadlineConfig = Type.Object(
  {
    minute: Type.String(),
    hour: Type.String(),
    dayOfTheMonth: Type.String(),
    month: Type.String(),
    dayOfWeek: Type.String(),
    year: Type.String(),
    timezone: Type.String(),
    cronExpression: Type.String(),
  },
  { description: 'Cron-style schedule; every field is "" when unknown.' },
);
export type DeadlineConfig = Static<typeof DeadlineConfig>;
/** Its fields in the order a normalized config holds them (and its stored JSON lists them). */
export const DEADLINE_CONFIG_FIELDS = Object.keys(DeadlineConfig.properties) as (keyof DeadlineConfig)[];

export const RunDetail = Type.Object(
  {
    stage: Type.String(),
    runId: NullableString,
    status: NullableString,
    startedAt: NullableDateTime,
    endedAt: NullableDateTime,
  },
  {},
);
export type RunDetail = Static<typeof RunDetail>;

export const DeliveryEvent = Type.Object(
  {
    status: NullableString,
    deliveryDeadline: NullableDateTime,
    deliveredAt: NullableDateTime,
    processingDeadlineConfig: DeadlineConfig,
    deliveryId: NullableString,
    runDetails: Type.Optional(Type.Array(RunDetail)),
  },
  {},
);
export type DeliveryEvent = Static<typeof DeliveryEvent>;

export const Supplier = Type.Object({ id: NullableString, name: NullableString }, {});

export const DatasetRecord = Type.Object(
  {
    legacyDatasetId: NullableString,
    datasetId: Type.String(),
    datasetName: NullableString,
    cduId: NullableString,
    cduName: NullableString,
    dataProductId: NullableString,
    dataProductName: NullableString,
    ownerOrgId: NullableString,
    supplier: Supplier,
    currentProcessingDeadlineConfig: DeadlineConfig,
    deliveryId: NullableString,
    deliveryEventList: Type.Array(DeliveryEvent),
    latestDeliveryStatus: NullableString,
    latestDeliveryTimestamp: NullableDateTime,
    nextExpectedDeliveryTimestamp: NullableDateTime,
  },
  {},
);
export type DatasetRecord = Static<typeof DatasetRecord>;

export const ListPage = Type.Object(
  {
    items: Type.Array(DatasetRecord),
    nextPageToken: Type.String(),
    previousPageToken: Type.String(),
    kind: Type.Literal('ops#datasetHealthList'),
  },
  {},
);
export type ListPage = Static<typeof ListPage>;

const TaskDetails = Type.Object(
  {
    deliveryId: NullableString,
    runId: Type.Optional(NullableString),
    destinationId: Type.Optional(NullableString),
    destinationName: Type.Optional(NullableString),
    destinationType: Type.Optional(NullableString),
    subscriberOrgId: Type.Optional(NullableString),
  },
  {
    description:
      'ingest/normalize/process: deliveryId; dispatch adds destination fields; runId only with includeRunDetails.',
  },
);

export const Task = Type.Object(
  {
    taskId: NullableString,
    taskName: NullableString,
    deliveryId: NullableString,
    cduId: NullableString,
    datasetId: NullableString,
    frameId: NullableString,
    scheduledAt: NullableDateTime,
    status: NullableString,
    reportedStatus: NullableString,
    taskStartedAt: NullableDateTime,
    taskEndedAt: NullableDateTime,
    shortCode: NullableString,
    codeDetails: NullableString,
    message: NullableString,
    details: TaskDetails,
    createdAt: NullableDateTime,
  },
  {},
);
export type Task = Static<typeof Task>;

const StageGroup = Type.Object({
  status: NullableString,
  timestamp: NullableDateTime,
  tasks: Type.Array(Task),
});
const NormalizeGroup = Type.Object({
  status: NullableString,
  timestamp: Type.String({ description: 'A plain string in the spec: "" when unknown.' }),
  tasks: Type.Array(Task),
});

export const TasksRecord = Type.Object(
  { ingest: StageGroup, normalize: NormalizeGroup, process: StageGroup, dispatch: StageGroup },
  {},
);
export type TasksRecord = Static<typeof TasksRecord>;

export const ErrorBody = Type.Object(
  {
    status: Type.Integer(),
    code: Type.Union([
      Type.Literal('INVALID_ARGUMENT'),
      Type.Literal('UNAUTHENTICATED'),
      Type.Literal('FORBIDDEN'),
      Type.Literal('NOT_FOUND'),
      Type.Literal('METHOD_NOT_ALLOWED'),
      Type.Literal('RATE_LIMITED'),
      Type.Literal('INTERNAL'),
      Type.Literal('UNAVAILABLE'),
    ]),
    message: Type.String(),
    field: Type.Optional(Type.String()),
  },
  {},
);
export type ErrorBody = Static<typeof ErrorBody>;

/** `import` / `export` file: records as the single-dataset endpoint returns them, plus tasks by delivery. */
export const Snapshot = Type.Object({
  datasets: Type.Array(DatasetRecord),
  tasks: Type.Optional(Type.Record(Type.String(), TasksRecord)),
});
export type Snapshot = Static<typeof Snapshot>;
