/**
 * A scripted on-call shift for the handoff tests (docs/architecture.md#handoff): an org driven through the sync's own
 * commits (applySync) and the on-call actions (acknowledge, withdraw, snooze, an outage) at pinned times,
 * so the handoff at SHIFT_END over [SHIFT_START, SHIFT_END] is the same on every run.
 *
 * 05:00 first sync: fx-rates FAILED (Normalize, E_SCHEMA_MISMATCH), bonds MISSING, the rest HEALTHY
 * 07:10 credit FAILED (Process, E_TIMEOUT)          09:00 eq-prices FAILED (Ingest, E_AUTH_FAILED)
 * 09:10 sam acknowledges eq-prices with a note       09:40 sam withdraws it
 * 10:00 alex acknowledges eq-prices with a note      10:30 credit HEALTHY again (recovered)
 * 11:30 contact with the source lost, 12:15 regained 12:00 bonds snoozed for 4 h
 * 13:00 rates first seen FAILED, its tasks not known yet
 * index delivers late more often than not: its 12:00 New York deadline (17:00 UTC) is at risk.
 */
import { acknowledgeDataset, unacknowledgeDataset } from '../../electron/knowledge/acknowledge';
import { storedDatasetIds } from '../../electron/query/storedHealth';
import type { Store } from '../../electron/store/database';
import { writeTasks } from '../../electron/store/tables/datasetWriter';
import { ensureOrg } from '../../electron/store/tables/orgs';
import { recordLoss, recordRegain } from '../../electron/store/tables/outages';
import { setSnooze } from '../../electron/store/tables/snoozes';
import { applySync } from '../../electron/sync/apply';
import { ChangeSet, defaultSpoolOptions } from '../../electron/sync/changes';
import type { DatasetRecord } from '../../shared/schemas';
import type { Stage } from '../../shared/status';
import { tasksFailingAt } from './fixtures';
import { scheduleConfig } from './history';
import { regroup } from './incidents';

export const SHIFT_ORG = 'acme';
export const SHIFT_ORG_NAME = 'Acme Markets';
export const SHIFT_START = new Date('2026-11-26T06:00:00.000Z');
export const SHIFT_END = new Date('2026-11-26T14:00:00.000Z');
export const SHIFT_SOURCE = { id: 'acme-remote', name: 'Acme remote' };

interface Delivery {
  id: string;
  deadline: string;
  deliveredAt: string | null;
  status: string;
}

interface Spec {
  id: string;
  name: string;
  supplier: { id: string; name: string };
  product: string;
  cron: string;
  timezone: string;
  /** Newest first, as the remote lists them. */
  deliveries: Delivery[];
}

const BLUEFIN = { id: 'SUP-1', name: 'Bluefin Exchange Feeds' };
const HARBOR = { id: 'SUP-2', name: 'Harbor Data' };

const at = (day: number, time: string) => `2026-11-${String(day).padStart(2, '0')}T${time}:00.000Z`;
const later = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * 60_000).toISOString();

/** Daily deliveries of `id` at `time` UTC, on the days given newest first, `offsets` minutes late (null: MISSING). */
function daily(id: string, time: string, days: number[], offsets: (number | null)[]): Delivery[] {
  return days.map((day, i) => {
    const deadline = at(day, time);
    const offset = offsets[i] ?? 0;
    const missing = offsets[i] === null;
    return {
      id: `${id}-${day}`,
      deadline,
      deliveredAt: missing ? null : later(deadline, offset),
      status: missing ? 'MISSING' : offset > 0 ? 'DELIVERED_LATE' : 'HEALTHY',
    };
  });
}

function recordOf(spec: Spec): DatasetRecord {
  const config = scheduleConfig(spec.cron, spec.timezone);
  const latest = spec.deliveries[0]!;
  return {
    legacyDatasetId: null,
    datasetId: spec.id,
    datasetName: spec.name,
    cduId: 'cdu-1',
    cduName: 'CDU 1',
    dataProductId: `dp-${spec.product}`,
    dataProductName: spec.product,
    ownerOrgId: 'owner-1',
    supplier: spec.supplier,
    currentProcessingDeadlineConfig: config,
    deliveryId: latest.id,
    deliveryEventList: spec.deliveries.map((delivery) => ({
      status: delivery.status,
      deliveryDeadline: delivery.deadline,
      deliveredAt: delivery.deliveredAt,
      processingDeadlineConfig: config,
      deliveryId: delivery.id,
    })),
    latestDeliveryStatus: latest.status,
    latestDeliveryTimestamp: latest.deliveredAt,
    nextExpectedDeliveryTimestamp: null,
  };
}

/** The newest delivery replaced: `status` (FAILED deliveries are delivered, MISSING ones not). */
function withLatest(spec: Spec, delivery: Delivery): Spec {
  return { ...spec, deliveries: [delivery, ...spec.deliveries] };
}

const EQ: Spec = {
  id: 'eq-prices',
  name: 'EMEA Equity Prices EOD',
  supplier: BLUEFIN,
  product: 'Equity Prices',
  cron: '30 6 * * *',
  timezone: '',
  deliveries: daily('eq-prices', '06:30', [25, 24, 23, 22], [-5, -5, -5, -5]),
};
const FX: Spec = {
  id: 'fx-rates',
  name: 'APAC FX Rates',
  supplier: HARBOR,
  product: 'FX Rates',
  cron: '30 4 * * *',
  timezone: '',
  deliveries: [
    { id: 'fx-rates-26', deadline: at(26, '04:30'), deliveredAt: at(26, '04:40'), status: 'FAILED' },
    ...daily('fx-rates', '04:30', [25, 24, 23], [0, 0, 0]),
  ],
};
const CREDIT: Spec = {
  id: 'credit',
  name: 'Credit Ratings',
  supplier: BLUEFIN,
  product: 'Credit Ratings',
  cron: '0 7 * * *',
  timezone: 'Europe/London',
  deliveries: daily('credit', '07:00', [25, 24, 23], [-10, -10, -10]),
};
const BONDS: Spec = {
  id: 'bonds',
  name: 'İstanbul Bonds',
  supplier: HARBOR,
  product: 'Bonds',
  cron: '0 4 * * *',
  timezone: 'Europe/Istanbul',
  deliveries: [
    { id: 'bonds-26', deadline: at(26, '01:00'), deliveredAt: null, status: 'MISSING' },
    ...daily('bonds', '01:00', [25, 24, 23], [0, 0, 0]),
  ],
};
/** Late on 9 of its last 14 days: 5 of 14 on time (36%), at risk. */
const INDEX: Spec = {
  id: 'index',
  name: 'Index Levels',
  supplier: HARBOR,
  product: 'Indices',
  cron: '0 12 * * *',
  timezone: 'America/New_York',
  deliveries: daily(
    'index',
    '17:00',
    [25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12],
    [30, 45, -5, 20, 15, -5, 60, 10, -5, 25, -5, 40, -5, 35],
  ),
};
const RATES: Spec = {
  id: 'rates',
  name: 'Rates [v2]',
  supplier: BLUEFIN,
  product: 'Rates',
  cron: '0 13 * * *',
  timezone: '',
  deliveries: [{ id: 'rates-26', deadline: at(26, '13:00'), deliveredAt: at(26, '12:58'), status: 'FAILED' }],
};

async function sync(store: Store, now: string, specs: Spec[]): Promise<void> {
  const changes = new ChangeSet(defaultSpoolOptions());
  specs.forEach((spec, i) => changes.add({ record: recordOf(spec), hash: `${spec.id}-${now}-${i}` }, 100));
  const stored = new Map(storedDatasetIds(store, SHIFT_ORG).map((id) => [id, true]));
  await applySync(store, {
    orgId: SHIFT_ORG,
    changes,
    stored,
    now: new Date(now),
    deliveriesPerDataset: 100,
  });
}

function failedTasks(
  store: Store,
  now: string,
  datasetId: string,
  deliveryId: string,
  stage: Stage,
  code: string,
  message: string,
  endedAt: string,
) {
  store.transaction(() => {
    writeTasks(
      store,
      SHIFT_ORG,
      deliveryId,
      tasksFailingAt(deliveryId, datasetId, stage, code, message, endedAt),
    );
    // As the sync's tasks commit: the failure moves to the incident of its cause.
    regroup(store, SHIFT_ORG, new Date(now));
  });
}

/** Plays the shift into an open store. */
export async function playShift(store: Store): Promise<void> {
  store.transaction(() => ensureOrg(store, SHIFT_ORG, new Date(at(26, '05:00')), SHIFT_ORG_NAME));
  await sync(store, at(26, '05:00'), [EQ, FX, CREDIT, BONDS, INDEX]);
  failedTasks(
    store,
    at(26, '05:00'),
    'fx-rates',
    'fx-rates-26',
    'normalize',
    'E_SCHEMA_MISMATCH',
    'column "px_last" is missing',
    at(26, '04:38'),
  );

  const creditFailed = withLatest(CREDIT, {
    id: 'credit-26',
    deadline: at(26, '07:00'),
    deliveredAt: at(26, '07:05'),
    status: 'FAILED',
  });
  await sync(store, at(26, '07:10'), [creditFailed]);
  failedTasks(
    store,
    at(26, '07:10'),
    'credit',
    'credit-26',
    'process',
    'E_TIMEOUT',
    'worker timed out after 600 s',
    at(26, '07:04'),
  );

  await sync(store, at(26, '09:00'), [
    withLatest(EQ, {
      id: 'eq-prices-26',
      deadline: at(26, '06:30'),
      deliveredAt: at(26, '08:50'),
      status: 'FAILED',
    }),
  ]);
  failedTasks(
    store,
    at(26, '09:00'),
    'eq-prices',
    'eq-prices-26',
    'ingest',
    'E_AUTH_FAILED',
    'SFTP login refused for user acme',
    at(26, '08:48'),
  );

  acknowledgeDataset(store, SHIFT_ORG, 'eq-prices', 'Rotating the key | see runbook step 3', {
    by: 'sam',
    now: new Date(at(26, '09:10')),
  });
  unacknowledgeDataset(store, SHIFT_ORG, 'eq-prices', { by: 'sam', now: new Date(at(26, '09:40')) });
  acknowledgeDataset(store, SHIFT_ORG, 'eq-prices', 'Vendor ticket 4411 opened; key expires *today*', {
    by: 'alex',
    now: new Date(at(26, '10:00')),
  });

  await sync(store, at(26, '10:30'), [
    withLatest(creditFailed, {
      id: 'credit-26b',
      deadline: at(26, '07:00'),
      deliveredAt: at(26, '10:20'),
      status: 'HEALTHY',
    }),
  ]);

  const outage = recordLoss(store, {
    orgId: SHIFT_ORG,
    sourceId: SHIFT_SOURCE.id,
    sourceName: SHIFT_SOURCE.name,
    lastSuccessAt: at(26, '11:00'),
    lostAt: at(26, '11:30'),
  });
  setSnooze(store, SHIFT_ORG, 'bonds', '4h', new Date(at(26, '12:00')));
  recordRegain(store, outage.id, at(26, '12:15'));

  await sync(store, at(26, '13:00'), [RATES]);
}
