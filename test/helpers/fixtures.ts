/**
 * A small org with awkward values on purpose: nulls and empty strings, Unicode beyond ASCII (including
 * astral characters, which order differently by UTF-16 unit and by code point), characters that are
 * special to GLOB/LIKE, duplicate names for tie-breaks, unknown statuses and missing timestamps.
 */
import { Rng } from '../../electron/demo/random';
import type { DatasetRecord, DeadlineConfig, DeliveryEvent, TasksRecord } from '../../shared/schemas';
import { STAGES, type Stage } from '../../shared/status';

export const NAMES = [
  'EMEA Equity Prices EOD',
  'emea equity prices eod',
  'APAC FX Rates',
  'Straße Daten',
  'STRASSE daten',
  'İstanbul Bonds',
  'Équité Europe',
  'Credit Ratings *daily*',
  'Rates [v2]?',
  '100% Coverage_ratio',
  'back\\slash',
  'a.b.c',
  'comma, (paren) "quote"',
  '🙂 emoji first',
  '～ fullwidth tilde',
  '',
  'Zeta',
  'tab\there\nnew line \u0001 control \u2028 separator',
];
const PRODUCTS = ['Equity Prices', 'FX Rates', 'Credit Ratings', 'équité', null, ''];
const SUPPLIERS = [
  { id: 'sup-1', name: 'Bloomberg' },
  { id: 'SUP-1', name: 'Other case' },
  { id: 'sup-2*', name: 'Star' },
  { id: null, name: null },
  { id: '', name: '' },
];
const STATUSES = ['FAILED', 'MISSING', 'DELIVERED_LATE', 'HEALTHY', 'IN_PROGRESS', 'failed', null, ''];

export const CONFIG: DeadlineConfig = {
  minute: '30',
  hour: '6',
  dayOfTheMonth: '*',
  month: '*',
  dayOfWeek: '*',
  year: '*',
  timezone: 'Europe/London',
  cronExpression: '30 6 * * * *',
};

function pick<T>(next: () => number, values: readonly T[]): T {
  return values[Math.floor(next() * values.length)]!;
}

export function fixtureRecords(count: number, seed = 7, prefix = 'ds'): DatasetRecord[] {
  // Seeded: fixtures are the same on every run.
  const rng = new Rng(seed);
  const next = (): number => rng.next();
  return Array.from({ length: count }, (_, i) => {
    const datasetId = `${prefix}-${String(i).padStart(4, '0')}${i % 11 === 0 ? '.X' : ''}`;
    const events: DeliveryEvent[] = Array.from({ length: 1 + (i % 4) }, (_, j) => ({
      status: pick(next, STATUSES),
      deliveryDeadline: new Date(Date.UTC(2026, 10, 20 - j, 6, 30)).toISOString(),
      deliveredAt:
        j % 3 === 1 ? null : new Date(Date.UTC(2026, 10, 20 - j, 6, Math.floor(next() * 59))).toISOString(),
      processingDeadlineConfig: CONFIG,
      deliveryId: `${datasetId}-dlv-${j}`,
    }));
    // A few timestamps repeat exactly, so ties fall through to name and id.
    const minute = Math.floor(next() * 6);
    return {
      legacyDatasetId: i % 3 === 0 ? `v1-${i % 9}` : null,
      datasetId,
      datasetName: i % 13 === 5 ? null : pick(next, NAMES),
      cduId: `cdu-${i % 5}`,
      cduName: `CDU ${i % 5}`,
      dataProductId: `dp-${i % 6}`,
      dataProductName: pick(next, PRODUCTS),
      ownerOrgId: 'owner-1',
      supplier: pick(next, SUPPLIERS),
      currentProcessingDeadlineConfig: CONFIG,
      deliveryId: events[0]!.deliveryId,
      deliveryEventList: events,
      latestDeliveryStatus: pick(next, STATUSES),
      latestDeliveryTimestamp: i % 7 === 3 ? null : new Date(Date.UTC(2026, 10, 20, 6, minute)).toISOString(),
      nextExpectedDeliveryTimestamp: new Date(Date.UTC(2026, 10, 21, 6, 30)).toISOString(),
    };
  });
}

export function fixtureTasks(deliveryId: string, datasetId: string): TasksRecord {
  const task = (taskId: string, status: string, stage: string) => ({
    taskId,
    taskName: `${stage} step`,
    deliveryId,
    cduId: 'cdu-0',
    datasetId,
    frameId: null,
    scheduledAt: '2026-11-20T05:00:00.000Z',
    status,
    reportedStatus: status,
    taskStartedAt: '2026-11-20T05:00:00.000Z',
    taskEndedAt: '2026-11-20T05:10:00.000Z',
    shortCode: status === 'FAILED' ? 'E_SCHEMA_MISMATCH' : null,
    codeDetails: status === 'FAILED' ? 'column price: expected decimal' : null,
    message: status === 'FAILED' ? 'The vendor file no longer matches the agreed schema' : null,
    details: { deliveryId, runId: `run-${stage}` },
    createdAt: '2026-11-20T04:59:00.000Z',
  });
  return {
    ingest: {
      status: 'SUCCEEDED',
      timestamp: '2026-11-20T05:10:00.000Z',
      tasks: [task('t-2', 'SUCCEEDED', 'ingest'), task('t-1', 'SUCCEEDED', 'ingest')],
    },
    normalize: {
      status: 'FAILED',
      timestamp: '2026-11-20T05:10:00.000Z',
      tasks: [task('t-3', 'FAILED', 'normalize')],
    },
    process: { status: 'PENDING', timestamp: null, tasks: [] },
    dispatch: {
      status: 'PENDING',
      timestamp: null,
      tasks: [
        {
          ...task('t-4', 'PENDING', 'dispatch'),
          details: {
            deliveryId,
            runId: 'run-dispatch',
            destinationId: 'dest-1',
            destinationName: 'Research bucket',
            destinationType: 'S3',
            subscriberOrgId: 'org-sub',
          },
        },
      ],
    },
  };
}

/**
 * Tasks of `deliveryId` whose only failed task is at `stage` with `code` and `message` (every other
 * stage succeeded); `stage` null: no task failed. What causes group by (docs/architecture.md#incidents).
 */
export function tasksFailingAt(
  deliveryId: string,
  datasetId: string,
  stage: Stage | null,
  code: string | null,
  message = 'it broke',
  /** When the failed task ended (and its stage's time); default the fixture's. */
  endedAt?: string,
): TasksRecord {
  const record = structuredClone(fixtureTasks(deliveryId, datasetId));
  const template = record.normalize.tasks[0]!;
  for (const each of STAGES) {
    const failing = each === stage;
    record[each].tasks = [
      {
        ...template,
        taskId: `${each}-1`,
        status: failing ? 'FAILED' : 'SUCCEEDED',
        shortCode: failing ? code : null,
        message: failing ? message : null,
        ...(failing && endedAt !== undefined ? { taskEndedAt: endedAt } : {}),
      },
    ];
    if (failing && endedAt !== undefined) record[each].timestamp = endedAt;
  }
  return record;
}
