/** Demo data and the pieces a live simulator reuses to advance time and re-derive statuses. */
export { generateDemoSnapshot, DEFAULT_DELIVERIES_PER_DATASET, type DemoOptions } from './generate';
export {
  generateDatasetPlan,
  datasetKey,
  DEFAULT_FAIL_RATE,
  DEFAULT_ORG_ID,
  type DatasetPlan,
  type Destination,
  type PipelineStep,
  type PlanOptions,
  type Reliability,
} from './plan';
export { deriveAttempt, attemptAt, attemptStatus, type Attempt, type AttemptStatus } from './attempt';
export {
  drawTimeline,
  attemptRng,
  deliveryIdFor,
  incidentAt,
  type AttemptTimeline,
  type Outcome,
} from './timeline';
export { buildTasksRecord } from './tasks';
export {
  buildDatasetRecord,
  compareAttempts,
  deriveAttempts,
  deriveDataset,
  type DatasetState,
} from './record';
export {
  cronFor,
  cronerPattern,
  isOccurrence,
  makeDeadlineConfig,
  nextOccurrenceAfter,
  occurrenceMemo,
  occurrencesUpTo,
  type Occurrences,
  type ScheduleInput,
} from './schedule';
export { Rng, hash32, hashString, mix32 } from './random';
export { hex8, iso } from './format';
