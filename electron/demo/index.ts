/** Demo data and the pieces a live simulator reuses to advance time and re-derive statuses. */
export {
  generateDemoSnapshot,
  generateDemoDatasets,
  DEFAULT_DELIVERIES_PER_DATASET,
  type DemoDataset,
  type DemoOptions,
} from './generate';
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
  stepTimes,
  attemptRng,
  deliveryIdFor,
  incidentAt,
  type AttemptTimeline,
  type Incident,
  type Outcome,
  type StepTimes,
} from './timeline';
export { buildTasksRecord } from './tasks';
export { describeFailure, type FailureText } from './failures';
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
  occurrencesAt,
  occurrencesUpTo,
  type Occurrences,
  type ScheduleInput,
} from './schedule';
export { Rng, hash32, hashString, mix32, unitHash } from './random';
export { concat, hex8, iso } from './format';
